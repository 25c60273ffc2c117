//! The table's memory, as the operating system gives it: how much the machine has and has free,
//! and a zeroed array taken from the kernel page by page, prepared on all cores. It knows
//! nothing of what the table stores in it ([`super::TransTable`] does).

use std::sync::atomic::Ordering;

/// Why a table of a chosen size cannot be had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableError {
    /// More megabytes than the machine has memory.
    MoreThanMachine { mb: usize, machine_mb: usize },
    /// More megabytes than the machine has free now: taking them all would end the process.
    MoreThanFree { mb: usize, free_mb: usize },
    /// The allocator (the kernel) refused the memory.
    Refused { mb: usize },
    /// A table file that cannot be made, opened or used, and why.
    File { path: String, why: String },
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            TableError::MoreThanMachine { mb, machine_mb } => write!(
                f,
                "a table of {mb} MB is more than this machine's memory ({machine_mb} MB)"
            ),
            TableError::MoreThanFree { mb, free_mb } => write!(
                f,
                "a table of {mb} MB is more than the memory free now ({free_mb} MB)"
            ),
            TableError::Refused { mb } => {
                write!(f, "the system refused the memory for a table of {mb} MB")
            }
            TableError::File { path, why } => write!(f, "table file {path}: {why}"),
        }
    }
}

impl std::error::Error for TableError {}

/// The machine's physical memory in megabytes, when the system says.
pub fn machine_memory_mb() -> Option<usize> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system configuration values.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && page > 0 {
            return Some(((pages as u128 * page as u128) >> 20) as usize);
        }
    }
    None
}

/// The memory the machine can give without swapping or ending processes, in megabytes, when
/// the system says (Linux: `MemAvailable`).
pub fn free_memory_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb >> 10)
}

/// Checks a table size a user chose against the machine's memory (without allocating).
pub fn check_size(mb: usize) -> Result<(), TableError> {
    match machine_memory_mb() {
        Some(machine_mb) if mb > machine_mb => Err(TableError::MoreThanMachine { mb, machine_mb }),
        _ => Ok(()),
    }
}

/// [`check_size`], and against the memory free now, for a table that replaces tables of
/// `freed_mb` megabytes, freed first: a table is prepared whole (see
/// [`super::TransTable::prepare`]), so all of it is taken at once, and more than is free would end
/// the process.
pub fn check_size_freeing(mb: usize, freed_mb: usize) -> Result<(), TableError> {
    check_size(mb)?;
    match free_memory_mb().map(|f| f.saturating_add(freed_mb)) {
        Some(free_mb) if mb > free_mb => Err(TableError::MoreThanFree { mb, free_mb }),
        _ => Ok(()),
    }
}

/// Asks the kernel to take every page of `piece` for writing now, its contents kept (Linux
/// 5.14 and later; the pieces of a mapping start on a page); false where it cannot, and the
/// caller touches the pages itself.
fn populate<T>(piece: &[T]) -> bool {
    #[cfg(target_os = "linux")]
    {
        let start = piece.as_ptr() as usize;
        if start.is_multiple_of(4096) {
            // SAFETY: the range is the piece, within the table's own mapping; the advice only
            // takes its pages, their contents unchanged.
            let r = unsafe {
                libc::madvise(
                    start as *mut libc::c_void,
                    std::mem::size_of_val(piece),
                    libc::MADV_POPULATE_WRITE,
                )
            };
            return r == 0;
        }
    }
    let _ = piece;
    false
}

/// A page of memory: touching one item in every this many bytes takes every page.
const PAGE_BYTES: usize = 4096;
/// The memory one thread prepares (or wipes) between two questions to its `cancelled`.
const PIECE_BYTES: usize = 4 << 20;
/// Tables smaller than this are prepared on the calling thread alone.
const PARALLEL_BYTES: usize = 64 << 20;

/// An array of `T` in pages of its own: zeroed ones from the kernel ([`Pages::try_new`]), or
/// a file's, shared with every process that maps it ([`Pages::map_file`]). On Unix the
/// pages cost nothing until first touched, which [`Pages::prepare`] does for every page, on
/// all cores: std's zeroed allocation writes every byte on one thread when the alignment is a
/// cache line's. On Linux a large table asks for huge pages: probes hit random buckets, and
/// with 4 KiB pages nearly every probe of a large table would also miss the TLB.
pub(super) struct Pages<T> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
}

// SAFETY: Pages owns its memory as a Box<[T]> would.
unsafe impl<T: Send> Send for Pages<T> {}
unsafe impl<T: Sync> Sync for Pages<T> {}

impl<T: Sync> Pages<T> {
    /// `len` (at least one) zeroed items, or `None` when the system refuses the memory.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T` (atomics and integers are).
    pub(super) unsafe fn try_new(len: usize) -> Option<Pages<T>> {
        let len = len.max(1);
        // the size overflows no address space (the layout below checks it again elsewhere)
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        #[cfg(not(unix))]
        let _ = bytes;
        #[cfg(unix)]
        // SAFETY: an anonymous private mapping of `bytes` bytes, owned by the result and unmapped
        // by its drop; the kernel returns it page-aligned (enough for any item aligned to a cache line) and
        // zeroed, and zeroed bytes are valid items (the caller's promise). madvise only advises about these pages.
        let ptr = unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if p == libc::MAP_FAILED {
                return None;
            }
            // The pages are taken by Pages::prepare, after this advice, so in huge pages
            // (for small tables too: a search of a few microseconds would otherwise pay for its
            // page faults, measured: Test_L3_R1 at 4 MB, 3.0-3.2 instead of 1.7 us a position).
            #[cfg(target_os = "linux")]
            if bytes >= 4 << 20 {
                libc::madvise(p, bytes, libc::MADV_HUGEPAGE);
            }
            p as *mut T
        };
        #[cfg(not(unix))]
        // SAFETY: a non-zero layout; zeroed bytes are valid items; freed by drop with the same
        // layout.
        let ptr = unsafe {
            std::alloc::alloc_zeroed(std::alloc::Layout::array::<T>(len).ok()?) as *mut T
        };
        Some(Pages {
            ptr: std::ptr::NonNull::new(ptr)?,
            len,
        })
    }

    /// `len` (at least one) items stored in `file` from byte `offset` on (a multiple of the
    /// page size), mapped shared: what this process writes there every process that maps the
    /// file reads, and it stays in the file after the process. `None` when the system refuses
    /// the mapping.
    ///
    /// # Safety
    /// Any bytes must be a valid `T` (atomics and integers are), and the file must hold
    /// `offset + len * size_of::<T>()` bytes (a page past its end would fault when touched).
    #[cfg(unix)]
    pub(super) unsafe fn map_file(
        file: &std::fs::File,
        offset: u64,
        len: usize,
    ) -> Option<Pages<T>> {
        use std::os::fd::AsRawFd;
        let len = len.max(1);
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        // SAFETY: a shared mapping of the file's bytes the caller vouches for, owned by the
        // result and unmapped by its drop; page-aligned, as an item aligned to a cache line needs.
        let ptr = unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                libc::off_t::try_from(offset).ok()?,
            );
            if p == libc::MAP_FAILED {
                return None;
            }
            #[cfg(target_os = "linux")]
            if bytes >= 4 << 20 {
                // granted only where the system gives huge pages to files in memory
                libc::madvise(p, bytes, libc::MADV_HUGEPAGE);
            }
            p as *mut T
        };
        Some(Pages {
            ptr: std::ptr::NonNull::new(ptr)?,
            len,
        })
    }

    /// Takes every page now, on several threads for a large array, `touch` writing one item of
    /// each page where the kernel cannot be asked to take them (what is there is kept). Call it
    /// before the memory is shared: a word written meanwhile could be lost. `cancelled` is
    /// asked between pieces of a few megabytes; false if it said stop first.
    pub(super) fn prepare(
        &self,
        cancelled: &(dyn Fn() -> bool + Sync),
        touch: impl Fn(&T) + Sync,
    ) -> bool {
        let per_page = (PAGE_BYTES / std::mem::size_of::<T>()).max(1);
        self.for_each_piece(cancelled, |piece| {
            if !populate(piece) {
                piece.iter().step_by(per_page).for_each(&touch);
            }
        })
    }

    /// Runs `work` on every piece of [`PIECE_BYTES`] of the buckets, on as many threads as the
    /// machine has cores (one for a small table), until `cancelled` says stop; true if every
    /// piece was done.
    pub(super) fn for_each_piece(
        &self,
        cancelled: &(dyn Fn() -> bool + Sync),
        work: impl Fn(&[T]) + Sync,
    ) -> bool {
        let per_piece = (PIECE_BYTES / std::mem::size_of::<T>()).max(1);
        let pieces: Vec<&[T]> = self.chunks(per_piece).collect();
        let bytes = self.len() * std::mem::size_of::<T>();
        let threads = if bytes < PARALLEL_BYTES {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        };
        let next = std::sync::atomic::AtomicUsize::new(0);
        let stopped = std::sync::atomic::AtomicBool::new(false);
        let run = || loop {
            if stopped.load(Ordering::Relaxed) {
                return;
            }
            let Some(piece) = pieces.get(next.fetch_add(1, Ordering::Relaxed)) else {
                return;
            };
            if cancelled() {
                stopped.store(true, Ordering::Relaxed);
                return;
            }
            work(piece);
        };
        if threads <= 1 {
            run();
        } else {
            std::thread::scope(|scope| {
                for _ in 1..threads {
                    // a thread that cannot be had leaves its share to the others
                    let _ = std::thread::Builder::new().spawn_scoped(scope, run);
                }
                run();
            });
        }
        !stopped.load(Ordering::Relaxed)
    }
}

impl<T> std::ops::Deref for Pages<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: ptr points to len initialised items owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for Pages<T> {
    fn drop(&mut self) {
        let bytes = self.len * std::mem::size_of::<T>();
        // SAFETY: frees exactly the memory try_new took, once.
        #[cfg(unix)]
        unsafe {
            libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, bytes);
        }
        #[cfg(not(unix))]
        unsafe {
            let _ = bytes;
            std::alloc::dealloc(
                self.ptr.as_ptr() as *mut u8,
                std::alloc::Layout::array::<T>(self.len).unwrap(),
            );
        }
    }
}
