//! prost's codec, with a request that does not decode answered as the caller's error
//! (`INVALID_ARGUMENT`, as the other bindings answer a body that is not JSON), not the server's.

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

pub(crate) struct A2aCodec<T, U>(ProstCodec<T, U>);

impl<T, U> Default for A2aCodec<T, U> {
    fn default() -> Self {
        A2aCodec(ProstCodec::default())
    }
}

impl<T, U> Codec for A2aCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ArgDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        self.0.encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        ArgDecoder(self.0.decoder())
    }
}

pub(crate) struct ArgDecoder<U>(ProstDecoder<U>);

impl<U: Message + Default> Decoder for ArgDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|e| {
            Status::invalid_argument(format!(
                "the request is not a protobuf message of its RPC's type: {}",
                e.message()
            ))
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
