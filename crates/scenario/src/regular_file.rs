//! Every file a user names is read here: scenario files and their imports, card, key and token
//! files, `--push-ca`, goldens, `convert`'s input and `audit`'s recordings. A name may point
//! anywhere: at `/dev/zero` (endless), at a FIFO (a read that never returns), at a directory. So a
//! file is opened without blocking, must be a regular file once open, and is read up to a cap:
//!
//! - [`SCENARIO_LIMIT`] (256 MiB) for a scenario, an import, standard input read as a scenario, a
//!   golden and `convert`'s input;
//! - [`KEY_LIMIT`] (1 MiB) for a card, a JWKS, a private JWK, a token file and `--push-ca`.
//!
//! `audit` streams its recordings in bounded memory, so it takes a regular file of any size.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The largest scenario (or import, golden, `convert` input) read: ten times the largest
/// generated benchmark file.
pub const SCENARIO_LIMIT: u64 = 256 << 20;
/// The largest card, key, token or certificate file read.
pub const KEY_LIMIT: u64 = 1 << 20;

/// Why a named file was not read.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// It exists but is no regular file: what it is instead.
    NotRegular(&'static str),
    TooLarge(u64),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotRegular(what) => {
                write!(f, "it is {what}, not a regular file; name a regular file")
            }
            ReadError::TooLarge(limit) => write!(
                f,
                "it is larger than {}, the most a2a-sim reads of such a file",
                size(*limit)
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// The bytes of the regular file `path`, at most `limit` of them.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = open(path)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Err(ReadError::TooLarge(limit));
    }
    read_limited(file, limit, len)
}

/// [`read`] as UTF-8 text.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    String::from_utf8(read(path, limit)?).map_err(|e| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it is not UTF-8 text ({})", e.utf8_error()),
        ))
    })
}

/// Standard input, at most `limit` bytes of it.
pub fn read_stdin(limit: u64) -> Result<Vec<u8>, ReadError> {
    read_limited(std::io::stdin().lock(), limit, 0)
}

/// A recording for `audit`, which streams it in bounded memory: a regular file of any size.
pub fn open_stream(path: &Path) -> Result<File, ReadError> {
    open(path)
}

fn read_limited(input: impl Read, limit: u64, hint: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::with_capacity(usize::try_from(hint.min(limit)).unwrap_or(0));
    input
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(limit));
    }
    Ok(bytes)
}

/// Opens `path` without blocking (a FIFO's open waits for a writer otherwise) and checks what it
/// is once open, so nothing can be swapped in between the check and the read.
fn open(path: &Path) -> Result<File, ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        // Reads of a regular file ignore the flag.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    #[cfg(not(target_os = "linux"))]
    {
        // Without O_NONBLOCK at hand, look before opening.
        regular(&std::fs::metadata(path)?.file_type())?;
    }
    let file = options.open(path)?;
    regular(&file.metadata()?.file_type())?;
    Ok(file)
}

/// Refuses anything but a regular file, saying what it is.
fn regular(t: &std::fs::FileType) -> Result<(), ReadError> {
    if t.is_file() {
        return Ok(());
    }
    if t.is_dir() {
        return Err(ReadError::NotRegular("a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        for (is, what) in [
            (t.is_fifo(), "a FIFO (named pipe)"),
            (t.is_char_device(), "a character device"),
            (t.is_block_device(), "a block device"),
            (t.is_socket(), "a socket"),
        ] {
            if is {
                return Err(ReadError::NotRegular(what));
            }
        }
    }
    Err(ReadError::NotRegular("a special file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_only_and_up_to_the_limit() {
        let dir = std::env::temp_dir().join(format!("a2a-sim-regular-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f.yaml");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read(&file, 10).unwrap(), b"0123456789");
        assert!(matches!(read(&file, 9), Err(ReadError::TooLarge(9))));
        assert!(matches!(
            read(&dir, 9),
            Err(ReadError::NotRegular("a directory"))
        ));
        assert!(matches!(read(&dir.join("none"), 9), Err(ReadError::Io(_))));
        #[cfg(unix)]
        {
            assert!(matches!(
                read(Path::new("/dev/zero"), KEY_LIMIT),
                Err(ReadError::NotRegular("a character device"))
            ));
            assert!(open_stream(Path::new("/dev/zero")).is_err());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
