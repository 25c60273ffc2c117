//! Every tunable of the exact solver, in rough order of importance, each with why it has its
//! value. Limits of the machine (threads) come last.

/// Positions with at least this many discs use the small table (see [`NEAR_TABLE_MB`]): many
/// cheap positions, whose probes into a large table would each be a cache miss.
pub const NEAR_PLIES: u32 = 22;

/// Boards this wide or wider start the small table later ([`WIDE_NEAR_PLIES`]): there a
/// position of [`NEAR_PLIES`] discs still has a large subtree, and the small table, far too
/// small for all of them, loses their results. Measured one after the other on a quiet machine
/// (docs/lab/2026-12-02-solver-edge.md): from 30 discs the 11x4 root eggfe takes 0.46 of the
/// nodes and 0.71 of the time. Narrower boards take fewer nodes too but more time, the misses
/// into the large table costing more than the nodes saved (the empty 10x4 board 0.60 of the
/// nodes and 1.08 of the time, 9x4 0.88 and 1.30).
pub const WIDE_FROM_COLUMNS: usize = 11;

/// Where the small table starts on the boards of [`WIDE_FROM_COLUMNS`] or more.
pub const WIDE_NEAR_PLIES: u32 = 30;

/// Size of the small table: about what stays in a core's cache. The misses, not the
/// arithmetic, bound the node rate deep in the tree.
pub const NEAR_TABLE_MB: usize = 1;

/// Positions with fewer discs than this use the mirror-symmetric key: there, the chance that a
/// mirror image was already searched is highest and the extra work per node pays.
pub const SYMMETRY_PLIES: u32 = 24;

/// Root windows step instead of halving when this many scores are left: a test just beside the
/// score costs most, and stepping out from 0 skips one more often than halving does. Over a
/// wider range the steps spend tests far from the score wherever it is not near 0.
pub const STEP_RANGE: i32 = 4;

/// The empty board's first this many root tests step out from 0 (as within [`STEP_RANGE`])
/// whatever the range: every published size's empty board scores -1, 0 or 1 (but 9x5: 3), which
/// two or three steps settle, each test beside the score, where halving first spends tests
/// that are far from it and still costly on a board this empty (measured: 15% fewer nodes on
/// the empty 8x4, 8% on 9x4, 30% on 7x5). Elsewhere the score is often far from 0 (Pons'
/// positions of 4 to 13 discs: |score| 8 to 18), and two steps cost 3.5 times the nodes there.
pub const EMPTY_BOARD_STEPS: u32 = 3;

/// A search with helpers first runs alone for this many nodes: most positions take a few
/// thousand, less than starting the helpers costs (see [`super::Solver::set_threads`]).
pub const RACE_AFTER_NODES: u64 = 20_000;

/// With helper threads, positions with fewer discs than this are kept in the shared table (one
/// thread: [`NEAR_PLIES`]): the threads then share the results of smaller subtrees and duplicate
/// less of each other's work, which is worth more than the cache misses it costs.
pub const SHARED_NEAR_PLIES: u32 = 26;

/// With helper threads, where the shared table's positions end on the boards of
/// [`WIDE_FROM_COLUMNS`] or more (as [`WIDE_NEAR_PLIES`] for one thread).
pub const SHARED_WIDE_NEAR_PLIES: u32 = 30;

/// Where the small table starts: from `narrow` discs, or from `wide` on the boards of
/// [`WIDE_FROM_COLUMNS`] or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NearPlies {
    pub narrow: u32,
    pub wide: u32,
}

impl NearPlies {
    /// One thread's ([`NEAR_PLIES`], [`WIDE_NEAR_PLIES`]).
    pub const ALONE: NearPlies = NearPlies {
        narrow: NEAR_PLIES,
        wide: WIDE_NEAR_PLIES,
    };

    /// With helper threads ([`SHARED_NEAR_PLIES`], [`SHARED_WIDE_NEAR_PLIES`]).
    pub const SHARED: NearPlies = NearPlies {
        narrow: SHARED_NEAR_PLIES,
        wide: SHARED_WIDE_NEAR_PLIES,
    };

    /// [`Self::SHARED`] in a solver with helper threads, else [`Self::ALONE`], each setting as
    /// [`tuned`] under its constant's name.
    pub fn for_threads(helpers: bool) -> NearPlies {
        let (near, narrow, wide) = if helpers {
            (Self::SHARED, "SHARED_NEAR_PLIES", "SHARED_WIDE_NEAR_PLIES")
        } else {
            (Self::ALONE, "NEAR_PLIES", "WIDE_NEAR_PLIES")
        };
        NearPlies {
            narrow: tuned(narrow, near.narrow),
            wide: tuned(wide, near.wide),
        }
    }

    /// Where the small table starts on a board `width` columns wide.
    pub fn on(self, width: usize) -> u32 {
        if width >= WIDE_FROM_COLUMNS {
            self.wide
        } else {
            self.narrow
        }
    }
}

/// From this many threads, every other helper steps its root tests out from 0 (as within
/// [`STEP_RANGE`]) instead of halving: two different null-window tests run at once, and whichever
/// answers first narrows the shared window for all. That pays with many threads where the score
/// is near 0 (as on the empty board); with few threads, or a score far from 0, the stepping tests
/// are mostly wasted.
pub const SPLIT_ROOT_TESTS_FROM: usize = 8;

/// With helper threads, positions with fewer discs than this are marked busy while a thread
/// searches them (see `parallel::Busy`): deeper, the subtrees are too small for the marks to
/// pay for their updates.
pub const BUSY_PLIES: u32 = 22;

/// Slots of the busy table (as a power of two) through which threads defer moves another
/// thread is searching: enough that unrelated positions rarely share a slot near the root.
pub const BUSY_BITS: u32 = 16;

/// A search cut short hands back, beside what it proved of the positions right below its root,
/// at most this many of the proofs it finished beside the line it was on, the costliest first:
/// what a search below it would otherwise do again (`vier prove` hands them to the next jobs).
pub const DEEP_LEARNT: usize = crate::solve_line::MAX_DEEP_LEARNT;

/// The work ([`crate::tt`]) a bound handed in from an earlier search is stored with: more than
/// any search of this one's can reach, so that the table keeps it until it is used.
pub const SEED_WORK: u32 = 48;

/// The most threads a solver runs: one in a build without the `threads` feature (the browser's).
pub const MAX_THREADS: usize = if cfg!(feature = "threads") { 64 } else { 1 };

/// A setting of the threads as the solver uses it: `value`, unless this is a build with the
/// `tune` feature and the environment sets `VIER_<name>` (a machine of many cores can then
/// sweep a setting with one binary; read when the thread count is set, never per node).
pub fn tuned(name: &str, value: u32) -> u32 {
    #[cfg(feature = "tune")]
    return overridden(
        name,
        value,
        std::env::var(format!("VIER_{name}")).ok().as_deref(),
    );
    #[cfg(not(feature = "tune"))]
    {
        let _ = name;
        value
    }
}

/// `value`, or the count `set` gives instead; says on stderr which, so that a log of a sweep
/// shows what ran.
#[cfg(feature = "tune")]
fn overridden(name: &str, value: u32, set: Option<&str>) -> u32 {
    let Some(set) = set else { return value };
    match set.trim().parse() {
        Ok(t) => {
            eprintln!("tune: {name} = {t} (instead of {value})");
            t
        }
        Err(_) => {
            eprintln!("tune: VIER_{name}={set:?} is not a count: {name} stays {value}");
            value
        }
    }
}

#[cfg(all(test, feature = "tune"))]
mod tests {
    use super::*;

    #[test]
    fn an_override_that_is_a_count_replaces_the_setting_and_any_other_leaves_it() {
        assert_eq!(overridden("SHARED_NEAR_PLIES", 26, None), 26);
        assert_eq!(overridden("SHARED_NEAR_PLIES", 26, Some("28")), 28);
        assert_eq!(overridden("SHARED_NEAR_PLIES", 26, Some(" 30\n")), 30);
        assert_eq!(overridden("SHARED_NEAR_PLIES", 26, Some("deep")), 26);
        assert_eq!(overridden("SHARED_NEAR_PLIES", 26, Some("-1")), 26);
    }
}
