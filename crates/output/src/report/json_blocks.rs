//! The report's long arrays (steps, tasks, denials, ...) rendered on two threads: each renders
//! alternate blocks of elements, and the blocks are written in order, so the bytes are the same
//! as one thread's. Memory stays bounded: the helper is at most two blocks ahead.

use std::sync::mpsc;

use crate::report::json_out::Out;

/// Elements per block: large enough that handing a block over costs nothing next to rendering
/// it, small enough that the blocks in flight stay small (a block of tasks is about 120 KB,
/// and three or four are in flight: at 512 a block they were 3 MiB of a 100,000-step run's
/// peak).
const BLOCK: usize = 64;

/// Arrays shorter than this are rendered on one thread: a thread costs more than it saves.
const PARALLEL_FROM: usize = 4 * BLOCK;

/// Renders `items` as the elements of the array open in `o`, in order. `render` writes one
/// element's value (the separator before it is written here).
pub(crate) fn elements<T: Sync>(
    o: &mut Out,
    items: &[T],
    render: impl Fn(&mut Out, usize, &T) + Sync,
) -> std::io::Result<()> {
    let one_thread = items.len() < PARALLEL_FROM || scenario::corpus::default_jobs() < 2;
    if one_thread {
        return block(o, items, 0, items.len(), &render);
    }
    let blocks = items.len().div_ceil(BLOCK);
    let range = |b: usize| (b * BLOCK, ((b + 1) * BLOCK).min(items.len()));
    // Rendered blocks go to the writer; their buffers come back for the next ones.
    let (done, rendered) = mpsc::sync_channel::<Vec<u8>>(1);
    let (give_back, returned) = mpsc::channel::<Vec<u8>>();
    // The first block is this thread's, so the helper's blocks always continue an array that
    // has elements already.
    block(o, items, 0, range(0).1, &render)?;
    let depth = o.depth();
    let render = &render;
    std::thread::scope(|s| {
        s.spawn(move || {
            // A continuing writer holds what it renders: nothing reaches the sink.
            let mut sink = std::io::sink();
            let mut helper = Out::continuing(&mut sink, depth);
            for b in (1..blocks).step_by(2) {
                let (from, to) = range(b);
                // Rendering into memory cannot fail.
                let _ = block(&mut helper, items, from, to, render);
                let mut bytes = returned.try_recv().unwrap_or_default();
                helper.take(&mut bytes);
                if done.send(bytes).is_err() {
                    // The writer stopped (a closed pipe): so does the helper.
                    return;
                }
            }
        });
        // Owned here, so that a writer that stops early (a closed pipe) drops them and the
        // helper, blocked on handing a block over, stops too.
        let (rendered, give_back) = (rendered, give_back);
        for b in 1..blocks {
            if b % 2 == 1 {
                let Ok(bytes) = rendered.recv() else { break };
                o.splice(&bytes)?;
                let _ = give_back.send(bytes);
            } else {
                let (from, to) = range(b);
                block(o, items, from, to, render)?;
            }
        }
        Ok(())
    })
}

/// Elements `from..to`, each with its separator, handing full chunks on between them.
fn block<T>(
    o: &mut Out,
    items: &[T],
    from: usize,
    to: usize,
    render: &impl Fn(&mut Out, usize, &T),
) -> std::io::Result<()> {
    for (i, item) in items.iter().enumerate().take(to).skip(from) {
        o.element();
        render(o, i, item);
        o.boundary()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::json_out::key;

    /// An array of objects inside an object, as the report's are, rendered by `each`.
    fn document(n: usize, each: impl Fn(&mut Out, &[u64])) -> Vec<u8> {
        let items: Vec<u64> = (0..n as u64).collect();
        let mut bytes = Vec::new();
        let mut o = Out::new(&mut bytes);
        o.open_object();
        key!(o, "items");
        o.open_array();
        each(&mut o, &items);
        o.close_array();
        key!(o, "after");
        o.u64(7);
        o.close_object();
        o.finish().unwrap();
        bytes
    }

    fn item(o: &mut Out, i: usize, n: &u64) {
        o.open_object();
        key!(o, "index");
        o.u64(i as u64);
        key!(o, "text");
        o.str(&"x".repeat((*n % 300) as usize));
        o.close_object();
    }

    #[test]
    fn two_threads_write_the_bytes_one_thread_writes() {
        // Several blocks, an odd number of them, and the last one short.
        for n in [
            0,
            1,
            PARALLEL_FROM - 1,
            PARALLEL_FROM,
            5 * BLOCK + 17,
            40 * BLOCK,
        ] {
            let one = document(n, |o, items| {
                block(o, items, 0, items.len(), &item).unwrap()
            });
            let two = document(n, |o, items| elements(o, items, item).unwrap());
            assert!(one == two, "{n} elements differ");
            let parsed: serde_json::Value = serde_json::from_slice(&one).unwrap();
            assert_eq!(parsed["items"].as_array().map(Vec::len), Some(n));
        }
    }

    #[test]
    fn a_writer_that_fails_stops_the_helper() {
        struct Closed;
        impl std::io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let items: Vec<u64> = (0..40 * BLOCK as u64).collect();
        let mut closed = Closed;
        let mut o = Out::new(&mut closed);
        o.open_array();
        // Returns (rather than hanging on a helper blocked on a full hand-over).
        let e = elements(&mut o, &items, item).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
    }
}
