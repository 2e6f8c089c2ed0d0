//! Work on every core: how many threads by default, and work over many items with the results
//! handed on in input order. A leaf: the corpus of files and the YAML reader both use it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// The number of worker threads to use by default: one per core. Asked of the system once (it
/// reads the cgroup's quota), for corpora, a large file's read and a long report alike.
pub fn default_jobs() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs `work` on every item with `jobs` threads and hands each result to `emit` in input order,
/// as soon as it and all before it are done.
pub fn for_each_ordered<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> R + Sync,
    mut emit: impl FnMut(usize, R),
) {
    let jobs = jobs.clamp(1, items.len().max(1));
    if jobs == 1 {
        for (i, item) in items.iter().enumerate() {
            emit(i, work(item));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx {
            pending.insert(i, r);
            while let Some(r) = pending.remove(&want) {
                emit(want, r);
                want += 1;
            }
        }
    });
}
