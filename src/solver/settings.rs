//! Every tunable of the exact solver, in rough order of importance, each with why it has its
//! value. Limits of the machine (threads) come last.

/// Positions with at least this many discs use the small table (see [`NEAR_TABLE_MB`]): many
/// cheap positions, whose probes into a large table would each be a cache miss.
pub const NEAR_PLIES: u32 = 22;

/// Size of the small table: about what stays in a core's cache. The misses, not the
/// arithmetic, bound the node rate deep in the tree.
pub const NEAR_TABLE_MB: usize = 1;

/// Positions with fewer discs than this use the mirror-symmetric key: there, the chance that a
/// mirror image was already searched is highest and the extra work per node pays.
pub const SYMMETRY_PLIES: u32 = 24;

/// Root windows step instead of halving when this many scores are left (measured: 4 gave 2.8%
/// fewer nodes on Test_L1_R2 and 4% on Test_L2_R2; 8 gave 11% fewer on the empty board but 3.7%
/// more on Test_L1_R2).
pub const STEP_RANGE: i32 = 4;

/// A search with helpers first runs alone for this many nodes: most positions take a few
/// thousand, less than starting the helpers costs (see [`super::Solver::set_threads`]).
pub const RACE_AFTER_NODES: u64 = 20_000;

/// Slots of the busy table (as a power of two) through which threads defer moves another
/// thread is searching: enough that unrelated positions rarely share a slot near the root.
pub const BUSY_BITS: u32 = 16;

/// The most threads a solver runs.
pub const MAX_THREADS: usize = 64;
