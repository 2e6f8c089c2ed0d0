#[cfg(target_os = "linux")]
mod huge {
    //! Large buffers (a big file's text, the world's task log; on larger runs its other logs and
    //! the engine's steps) asked for in transparent huge pages where the kernel gives them on
    //! request (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise` or `always`): one page
    //! fault per 2 MiB instead of 512, and fewer TLB misses on the task log's random reads. A run
    //! of 100,000 steps takes about 29,500 page faults without the advice, 16,000 with it, and
    //! some 15 % less time, for about 1 MiB more of its peak. Where the kernel ignores it nothing
    //! changes; allocation itself is `System`'s.
    //!
    //! Only buffers of 8 MiB and more. Each advised log that is still growing holds its partly
    //! used last huge page; advising the 4–8 MiB logs of a 100,000-step run too (run state,
    //! events) cost 2 MiB of its peak for no time gained.

    use std::alloc::{GlobalAlloc, Layout, System};

    /// Buffers from this size on are advised.
    const LARGE: usize = 8 << 20;
    const HUGE_PAGE: usize = 2 << 20;

    pub struct Allocator;

    /// The whole huge pages inside a buffer of `size` bytes at `at`, if it is large.
    pub fn huge_pages(at: usize, size: usize) -> Option<(usize, usize)> {
        if at == 0 || size < LARGE {
            return None;
        }
        let start = at.checked_next_multiple_of(HUGE_PAGE)?;
        let end = at.checked_add(size)? & !(HUGE_PAGE - 1);
        (end > start).then_some((start, end))
    }

    fn advise(ptr: *mut u8, size: usize) {
        if let Some((start, end)) = huge_pages(ptr as usize, size) {
            // SAFETY: [start, end) lies inside the allocation just made; the advice changes how
            // its pages are backed, never their contents, and its result is only a hint.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }

    // SAFETY: every call goes to `System` unchanged; `advise` only adds a hint on the result.
    unsafe impl GlobalAlloc for Allocator {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let ptr = unsafe { System.alloc(layout) };
            advise(ptr, layout.size());
            ptr
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let ptr = unsafe { System.alloc_zeroed(layout) };
            advise(ptr, layout.size());
            ptr
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let new = unsafe { System.realloc(ptr, layout, new_size) };
            advise(new, new_size);
            new
        }
    }
}

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: huge::Allocator = huge::Allocator;

fn main() -> std::process::ExitCode {
    match a2a_sim::cli::run() {
        Ok(status) => status.code().into(),
        Err(e) => {
            eprintln!("{e}");
            e.code().into()
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::huge::huge_pages;

    #[test]
    fn only_whole_huge_pages_inside_a_large_buffer_are_advised() {
        const MB: usize = 1 << 20;
        // Small buffers: none.
        assert_eq!(huge_pages(64 * MB + 16, MB), None);
        // An unaligned 10 MiB buffer: the aligned pages inside it, never beyond either end.
        let (at, size) = (64 * MB + 16, 10 * MB);
        assert_eq!(huge_pages(at, size), Some((66 * MB, 74 * MB)));
        // Aligned: the whole buffer.
        assert_eq!(huge_pages(64 * MB, 8 * MB), Some((64 * MB, 72 * MB)));
        // Just large enough: the whole pages inside; a little smaller: none; null: none; at the top
        // of memory: none.
        assert_eq!(huge_pages(MB, 8 * MB + 1), Some((2 * MB, 8 * MB)));
        assert_eq!(huge_pages(2 * MB, 8 * MB - 1), None);
        assert_eq!(huge_pages(0, 8 * MB), None);
        assert_eq!(huge_pages(usize::MAX - MB, 8 * MB), None);
    }
}
