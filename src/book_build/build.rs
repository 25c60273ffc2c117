//! Building and checking a book: every position with exactly `depth` discs (each mirror pair
//! once, finished games left out) is solved, with its best move, on `threads` threads, each
//! with its own solver and table, taking chunks of neighbouring positions so that a thread's
//! table serves siblings.
//! Every solved position goes to the [`Journal`] at once; a build that is interrupted resumes
//! from it. When the last ply is complete, the shallower plies are scored by negamax over their
//! children (no search), the main line is added if asked, the book is written and the journal
//! removed. [`verify`] re-solves a sample of a book without any book.
//!
//! A build can be split: [`build_shard`] solves one [`ShardSpec`] of the last ply into a
//! [`Shard`] file, anywhere, and [`merge`] checks the shards and takes the same finishing step
//! as [`build`], which is itself the one shard `0/1` solved in process. So the merged book is
//! the unsharded one, byte for byte. The main line (`--line`) is added at the merge: it needs
//! the whole ply, and it is one sequential walk.

use crate::bits::Bitboard;
use crate::board::{Position, Size, SizedJob};
use crate::book::journal::{journal_path, Journal};
use crate::book::shard::{shard_of, Shard, ShardSpec};
use crate::book::{key_as, key_discs, position_from_key, Book, BookError, BookKey, Entry};
use crate::ordering::column_order;
use crate::rng::Rng;
use crate::solver::Solver;
use crossbeam_channel::unbounded;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Positions a thread takes at a time: neighbours in depth-first order, sharing the table.
const CHUNK: usize = 16;

/// Missing shards a refused merge names (it counts the rest).
const MISSING_SHOWN: usize = 10;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub size: Size,
    pub depth: u32,
    pub threads: usize,
    /// Table size per thread, MB.
    pub hash_mb: usize,
    pub out: PathBuf,
    /// Extend the book with the main line up to positions of this many discs (every move from
    /// each line position is scored); at most `depth` for none.
    pub line: u32,
    /// Positions (move strings) to solve and keep besides the full width: the book need not
    /// hold every position of a ply to be worth more past its depth.
    pub extra: Vec<String>,
    /// A book whose exact scores are taken as they are (say the shipped one, under a layer
    /// built over it): the positions it holds are not solved again. Shards read no book at
    /// their `out`, so this is how a shard of a deep layer skips what is already known.
    pub book: Option<PathBuf>,
}

fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}s", s)
    }
}

/// Builds the book; progress goes to `log`. Returns the book written.
pub fn build(opts: &BuildOptions, log: &mut dyn Write) -> io::Result<Book> {
    struct Build<'a>(&'a BuildOptions, &'a mut dyn Write);
    impl SizedJob for Build<'_> {
        type Output = io::Result<Book>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            build_sized::<W, H, B>(self.0, self.1)
        }
    }
    opts.size.run(Build(opts, log))
}

/// An unsharded build: the one shard of the whole ply, solved here, then the finishing step
/// that [`merge`] takes too. Over the bits type `B` the caller chooses: [`build`] takes the
/// registry's; a wider one (`u128` on a 64-bit board) builds the same book, byte for byte,
/// which is how the tests check the code of the boards past 64 bits.
pub fn build_sized<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
    log: &mut dyn Write,
) -> io::Result<Book> {
    let started = Instant::now();
    // a bad list is refused before anything is solved or written
    let extra = extra_keys::<W, H, B>(opts)?;
    let given = given_book::<W, H>(opts)?;
    let plies = plan::<W, H, B>(opts.depth, log)?;
    let jpath = journal_path(&opts.out);
    let (mut journal, mut known) = Journal::open(&jpath, opts.size)?;
    reuse_book::<W, H, B>(&opts.out, &mut known, log)?;
    if let Some(book) = &given {
        learn_book(book, "the --book", &mut known, log)?;
    }
    solve_part::<W, H, B>(
        &plies[opts.depth as usize],
        opts,
        &mut known,
        &mut journal,
        &jpath,
        log,
    )?;
    if !extra.is_empty() {
        writeln!(log, "extra positions: {}", extra.len())?;
        solve_part::<W, H, B>(&extra, opts, &mut known, &mut journal, &jpath, log)?;
    }
    finish::<W, H, B>(opts, &plies, &extra, known, journal, started, log)
}

/// The move strings of a list file (`--extra`): one a line, `#` starting a comment, blank lines
/// skipped; whether they are positions is [`build`]'s to check.
pub fn read_move_list(path: &Path) -> io::Result<Vec<String>> {
    let file = std::fs::File::open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    read_move_lines(io::BufReader::new(file))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// [`read_move_list`] from any reader (standard input, say).
pub fn read_move_lines(input: impl io::BufRead) -> io::Result<Vec<String>> {
    let mut list = Vec::new();
    for line in input.lines() {
        let line = line?;
        let m = line.split('#').next().unwrap_or("").trim();
        if !m.is_empty() {
            list.push(m.to_string());
        }
    }
    Ok(list)
}

/// The keys of `opts.extra` past the full-width depth, each once; an error names a move string
/// that is not a position, or one whose game is over.
fn extra_keys<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
) -> io::Result<Vec<B>> {
    let mut keys = Vec::new();
    let mut seen = HashSet::new();
    for m in &opts.extra {
        let p = listed_position::<W, H, B>(m, "extra position")?;
        let k = p.symmetric_key().0;
        if p.moves() > opts.depth && seen.insert(k) {
            keys.push(k);
        }
    }
    Ok(keys)
}

/// The position of move string `m` from a list (`what` names the list's items in the error):
/// one that is not a position, or whose game is over, is refused.
pub(crate) fn listed_position<const W: usize, const H: usize, B: Bitboard>(
    m: &str,
    what: &str,
) -> io::Result<Position<W, H, B>> {
    let refuse =
        |why: String| io::Error::new(io::ErrorKind::InvalidInput, format!("{what} {m}: {why}"));
    let p = Position::<W, H, B>::from_moves(m).map_err(|e| refuse(e.to_string()))?;
    if p.is_game_over() {
        return Err(refuse("the game is over".into()));
    }
    Ok(p)
}

/// Every thread has its own table of `hash_mb`: together they must fit the machine.
pub(crate) fn thread_tables_fit(hash_mb: usize, threads: usize) -> io::Result<()> {
    crate::tt::check_size(hash_mb.saturating_mul(threads.max(1))).map_err(|e| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("{e} (--hash per thread)"),
        )
    })
}

/// Solves shard `spec` of a build: the positions with exactly `opts.depth` discs, and those of
/// `opts.extra`, that [`ShardSpec::holds`], written to `opts.out` as a [`Shard`] when all are
/// solved. Resumable from its journal as [`build`] is. The main line (`opts.line`) is the
/// merge's business.
pub fn build_shard(opts: &BuildOptions, spec: ShardSpec, log: &mut dyn Write) -> io::Result<Shard> {
    if opts.line > opts.depth {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--line is added when the shards are merged (vier book merge --line N), not by a shard",
        ));
    }
    struct BuildShard<'a>(&'a BuildOptions, ShardSpec, &'a mut dyn Write);
    impl SizedJob for BuildShard<'_> {
        type Output = io::Result<Shard>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            build_shard_sized::<W, H, B>(self.0, self.1, self.2)
        }
    }
    opts.size.run(BuildShard(opts, spec, log))
}

fn build_shard_sized<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
    spec: ShardSpec,
    log: &mut dyn Write,
) -> io::Result<Shard> {
    let started = Instant::now();
    // a bad list is refused before anything is solved or written
    let extra = extra_keys::<W, H, B>(opts)?;
    let given = given_book::<W, H>(opts)?;
    let plies = plan::<W, H, B>(opts.depth, log)?;
    let last = &plies[opts.depth as usize];
    let ply_positions = u32::try_from(last.len())
        .map_err(|_| io::Error::other("more positions in one ply than a shard file counts"))?;
    let part: Vec<B> = last
        .iter()
        .copied()
        .filter(|&k| spec.holds::<W, H, B>(k))
        .collect();
    // the extra positions split by the same rule as the ply
    let extra_part: Vec<B> = extra
        .iter()
        .copied()
        .filter(|&k| spec.holds::<W, H, B>(k))
        .collect();
    writeln!(
        log,
        "shard {spec}: {} of the {} positions with {} discs, {} of the {} extra positions",
        part.len(),
        last.len(),
        opts.depth,
        extra_part.len(),
        extra.len()
    )?;
    let jpath = journal_path(&opts.out);
    let (mut journal, mut known) = Journal::open(&jpath, opts.size)?;
    // a shard already at `out` (of any split) holds exact scores
    if let Ok(old) = Shard::load(&opts.out) {
        if old.size == opts.size {
            for (k, e) in old.entries() {
                if let Some(k) = key_as::<B>(k) {
                    learn(&mut known, k, e);
                }
            }
        }
    }
    if let Some(book) = &given {
        learn_book(book, "the --book", &mut known, log)?;
    }
    solve_part::<W, H, B>(&part, opts, &mut known, &mut journal, &jpath, log)?;
    if !extra_part.is_empty() {
        solve_part::<W, H, B>(&extra_part, opts, &mut known, &mut journal, &jpath, log)?;
    }
    let entries = part
        .iter()
        .chain(&extra_part)
        .map(|&k| (k, known[&k]))
        .collect::<Vec<(B, Entry)>>();
    let shard = Shard::new(opts.size, opts.depth, spec, ply_positions, entries);
    journal.sync()?;
    drop(journal);
    shard.save(&opts.out)?;
    std::fs::remove_file(&jpath)?;
    writeln!(
        log,
        "wrote shard {spec} to {}: {} positions, {} bytes, in {}",
        opts.out.display(),
        shard.len(),
        shard.to_bytes().len(),
        fmt_duration(started.elapsed())
    )?;
    Ok(shard)
}

/// Where `vier book merge` writes, and what it adds past the shards.
#[derive(Clone, Debug)]
pub struct MergeOptions {
    pub out: PathBuf,
    /// The main line up to positions of this many discs, as [`BuildOptions::line`].
    pub line: u32,
    /// Table size for the main line's solves, MB.
    pub hash_mb: usize,
    /// The `--extra` list the shards were built with (move strings): each shard must hold
    /// its part of it, and the book keeps them as a build with the list does.
    pub extra: Vec<String>,
}

/// Why shards do not make a book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeError {
    NoShards,
    /// A file that is no sound shard.
    Damaged {
        file: PathBuf,
        error: BookError,
    },
    /// A shard of another build: `what` says how it differs from `other`.
    Foreign {
        file: PathBuf,
        other: PathBuf,
        what: String,
    },
    Duplicate {
        spec: ShardSpec,
        first: PathBuf,
        second: PathBuf,
    },
    /// `total` shards of `count` are missing; `missing` are the first few of them.
    Missing {
        missing: Vec<u32>,
        total: u32,
        count: u32,
    },
    /// The shards' ply is not the one this vier enumerates (another rule, another version).
    PlyMismatch {
        in_shards: u32,
        enumerated: usize,
    },
    /// A shard whose entries are not exactly the positions of its part.
    WrongEntries {
        file: PathBuf,
        why: String,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::NoShards => write!(f, "no shards to merge"),
            MergeError::Damaged { file, error } => write!(f, "{}: {error}", file.display()),
            MergeError::Foreign { file, other, what } => write!(
                f,
                "{} does not belong with {}: {what}",
                file.display(),
                other.display()
            ),
            MergeError::Duplicate {
                spec,
                first,
                second,
            } => write!(
                f,
                "duplicate shard {spec}: {} and {}",
                first.display(),
                second.display()
            ),
            MergeError::Missing {
                missing,
                total,
                count,
            } => {
                let mut list: Vec<String> =
                    missing.iter().map(|k| format!("{k}/{count}")).collect();
                if *total as usize > missing.len() {
                    list.push(format!("and {} more", *total as usize - missing.len()));
                }
                write!(
                    f,
                    "missing shard{} {} (need all of 0/{count} to {}/{count})",
                    if *total == 1 { "" } else { "s" },
                    list.join(", "),
                    count - 1
                )
            }
            MergeError::PlyMismatch {
                in_shards,
                enumerated,
            } => write!(
                f,
                "the shards cover a ply of {in_shards} positions, this vier enumerates {enumerated}"
            ),
            MergeError::WrongEntries { file, why } => write!(f, "{}: {why}", file.display()),
        }
    }
}

impl std::error::Error for MergeError {}

fn refuse(e: MergeError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// Checks that `files` are the complete, sound shards of one build and makes the book from them
/// as [`build`] does (same finishing step, same bytes). Nothing is written unless they are.
pub fn merge(opts: &MergeOptions, files: &[PathBuf], log: &mut dyn Write) -> io::Result<Book> {
    let started = Instant::now();
    let mut shards = Vec::with_capacity(files.len());
    for file in files {
        let shard = Shard::load(file).map_err(|error| {
            refuse(MergeError::Damaged {
                file: file.clone(),
                error,
            })
        })?;
        shards.push((file.clone(), shard));
    }
    let Some((first_file, first)) = shards.first() else {
        return Err(refuse(MergeError::NoShards));
    };
    let count = first.spec.count;
    let mut seen: HashMap<u32, &PathBuf> = HashMap::new();
    for (file, s) in &shards {
        let what = if s.size != first.size {
            Some(format!("a {} board, not {}", s.size, first.size))
        } else if s.depth != first.depth {
            Some(format!("depth {}, not {}", s.depth, first.depth))
        } else if s.spec.count != count {
            Some(format!(
                "shard {} of a split in {}, not in {count}",
                s.spec, s.spec.count
            ))
        } else if s.ply_positions != first.ply_positions {
            Some(format!(
                "a ply of {} positions, not {}",
                s.ply_positions, first.ply_positions
            ))
        } else {
            None
        };
        if let Some(what) = what {
            return Err(refuse(MergeError::Foreign {
                file: file.clone(),
                other: first_file.clone(),
                what,
            }));
        }
        if let Some(prev) = seen.insert(s.spec.index, file) {
            return Err(refuse(MergeError::Duplicate {
                spec: s.spec,
                first: prev.clone(),
                second: file.clone(),
            }));
        }
    }
    if seen.len() < count as usize {
        // the first few by number: N comes from a file, and may be huge
        let missing: Vec<u32> = (0..count)
            .filter(|k| !seen.contains_key(k))
            .take(MISSING_SHOWN)
            .collect();
        return Err(refuse(MergeError::Missing {
            missing,
            total: count - seen.len() as u32,
            count,
        }));
    }
    let opts = BuildOptions {
        size: first.size,
        depth: first.depth,
        threads: 1,
        hash_mb: opts.hash_mb,
        out: opts.out.clone(),
        line: opts.line,
        extra: opts.extra.clone(),
        book: None,
    };
    struct Merge<'a>(
        &'a BuildOptions,
        &'a [(PathBuf, Shard)],
        Instant,
        &'a mut dyn Write,
    );
    impl SizedJob for Merge<'_> {
        type Output = io::Result<Book>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            merge_sized::<W, H, B>(self.0, self.1, self.2, self.3)
        }
    }
    opts.size.run(Merge(&opts, &shards, started, log))
}

fn merge_sized<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
    shards: &[(PathBuf, Shard)],
    started: Instant,
    log: &mut dyn Write,
) -> io::Result<Book> {
    let extra = extra_keys::<W, H, B>(opts)?;
    let plies = plan::<W, H, B>(opts.depth, log)?;
    let last = &plies[opts.depth as usize];
    let in_shards = shards[0].1.ply_positions;
    if last.len() != in_shards as usize {
        return Err(refuse(MergeError::PlyMismatch {
            in_shards,
            enumerated: last.len(),
        }));
    }
    // every shard must hold exactly its part of the ply and of the extra positions: no
    // position of another, none missing
    let ply: HashSet<B> = last.iter().chain(&extra).copied().collect();
    let mut per_shard = vec![0usize; shards[0].1.spec.count as usize];
    for &k in last.iter().chain(&extra) {
        per_shard[shard_of::<W, H, B>(k, shards[0].1.spec.count) as usize] += 1;
    }
    let part_of = if extra.is_empty() {
        "the ply"
    } else {
        "the ply and the --extra list"
    };
    for (file, s) in shards {
        if let Some((k, _)) = s.entries().find(|&(k, _)| {
            key_as::<B>(k).is_none_or(|k| !ply.contains(&k) || !s.spec.holds::<W, H, B>(k))
        }) {
            let moves = key_as::<B>(k)
                .and_then(position_from_key::<W, H, B>)
                .and_then(|p| p.to_move_string())
                .unwrap_or_else(|| format!("key {k:#x}"));
            return Err(refuse(MergeError::WrongEntries {
                file: file.clone(),
                why: format!(
                    "holds {} which is not a position of shard {} of {part_of}",
                    crate::book::display_moves(&moves),
                    s.spec
                ),
            }));
        }
        let needs = per_shard[s.spec.index as usize];
        if s.len() != needs {
            return Err(refuse(MergeError::WrongEntries {
                file: file.clone(),
                why: format!(
                    "shard {} holds {} positions, its part of {part_of} has {needs}: incomplete",
                    s.spec,
                    s.len()
                ),
            }));
        }
    }
    writeln!(
        log,
        "merging {} shards: {} positions with {} discs",
        shards.len(),
        last.len(),
        opts.depth
    )?;
    let jpath = journal_path(&opts.out);
    let (journal, mut known) = Journal::open(&jpath, opts.size)?;
    reuse_book::<W, H, B>(&opts.out, &mut known, log)?;
    for (k, e) in shards.iter().flat_map(|(_, s)| s.entries()) {
        // every key was checked to be one of the ply's
        learn(&mut known, key_as::<B>(k).expect("a key of the ply"), e);
    }
    finish::<W, H, B>(opts, &plies, &extra, known, journal, started, log)
}

/// Every position up to `depth` discs (see [`enumerate`]), after checking that the depth leaves
/// the game something to play; says on `log` what there is to do.
fn plan<const W: usize, const H: usize, B: Bitboard>(
    depth: u32,
    log: &mut dyn Write,
) -> io::Result<Vec<Vec<B>>> {
    if depth as usize >= W * H {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("depth {} is not below the {} cells", depth, W * H),
        ));
    }
    let started = Instant::now();
    let plies = enumerate::<W, H, B>(depth);
    let total: usize = plies.iter().map(Vec::len).sum();
    writeln!(
        log,
        "book {}x{} depth {}: {} positions, {} with {} discs to solve ({} ms to enumerate)",
        W,
        H,
        depth,
        total,
        plies[depth as usize].len(),
        depth,
        started.elapsed().as_millis()
    )?;
    Ok(plies)
}

/// Records what is known of a position, keeping a best move over none (a book of format
/// version 1 has scores only: its positions need just their moves found).
fn learn<B: Bitboard>(known: &mut HashMap<B, Entry>, key: B, e: Entry) {
    let slot = known.entry(key).or_insert(e);
    if slot.best == 0 {
        *slot = e;
    }
}

/// The entry of `p`, in the orientation of its symmetric key: its exact score (`known`, or
/// solved) and its best move. The move is found in that orientation too: where two columns
/// as near the centre keep the value, the one chosen must not depend on which mirror image
/// was met first (the main line meets positions as played, a list as keyed).
pub fn solve_entry<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver,
    p: &Position<W, H, B>,
    known: Option<i32>,
) -> Entry {
    let p = if p.symmetric_key().1 {
        p.mirrored()
    } else {
        *p
    };
    let score = known.unwrap_or_else(|| solver.solve(&p).expect("no limits are set"));
    let best = solver.best_column(&p, score).expect("no limits are set");
    Entry::new(score, best)
}

/// A book already at `out` (an earlier build, say to another depth) holds exact scores too.
fn reuse_book<const W: usize, const H: usize, B: Bitboard>(
    out: &Path,
    known: &mut HashMap<B, Entry>,
    log: &mut dyn Write,
) -> io::Result<()> {
    match Book::load(out) {
        Ok(old) if (old.width(), old.height()) == (W, H) => {
            learn_book(&old, &format!("the book at {}", out.display()), known, log)
        }
        _ => Ok(()),
    }
}

/// The book given with `opts.book`, loaded before anything is written. Unlike the one at
/// `out` it was asked for, so a file that does not load or is of another size is an error.
fn given_book<const W: usize, const H: usize>(opts: &BuildOptions) -> io::Result<Option<Book>> {
    let Some(path) = &opts.book else {
        return Ok(None);
    };
    let book = Book::load(path).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("--book {}: {e}", path.display()),
        )
    })?;
    if (book.width(), book.height()) != (W, H) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--book {} is a {}x{} book, the build is {W}x{H}",
                path.display(),
                book.width(),
                book.height(),
            ),
        ));
    }
    Ok(Some(book))
}

/// Takes a book's scores as known (a book of the build's size: its keys fit `B`).
fn learn_book<B: Bitboard>(
    book: &Book,
    what: &str,
    known: &mut HashMap<B, Entry>,
    log: &mut dyn Write,
) -> io::Result<()> {
    for (k, e) in book.values() {
        if let Some(k) = key_as::<B>(k) {
            learn(known, k, e);
        }
    }
    writeln!(log, "reusing the {} scores of {what}", book.len())
}

/// Solves the positions of `part` not yet `known` (or known without a best move) on
/// `opts.threads` threads, each with its own solver and table, taking chunks of neighbouring
/// positions; every entry goes to the journal and to `known` as it comes.
fn solve_part<const W: usize, const H: usize, B: Bitboard>(
    part: &[B],
    opts: &BuildOptions,
    known: &mut HashMap<B, Entry>,
    journal: &mut Journal,
    jpath: &Path,
    log: &mut dyn Write,
) -> io::Result<()> {
    // with the score known, only the move is left to find
    let todo: Vec<(B, Option<i32>)> = part
        .iter()
        .filter_map(|k| match known.get(k) {
            None => Some((*k, None)),
            Some(e) if e.best == 0 => Some((*k, Some(e.score as i32))),
            Some(_) => None,
        })
        .collect();
    if todo.len() < part.len() {
        writeln!(
            log,
            "resuming from {}: {} of {} already solved",
            jpath.display(),
            part.len() - todo.len(),
            part.len()
        )?;
    }
    let scored = todo.iter().filter(|t| t.1.is_some()).count();
    if scored > 0 {
        writeln!(
            log,
            "{scored} scores known without a best move: finding the moves"
        )?;
    }
    thread_tables_fit(opts.hash_mb, opts.threads)?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = unbounded::<(B, Entry, u64)>();
    let solve_started = Instant::now();
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..opts.threads.max(1) {
            let tx = tx.clone();
            let (todo, next) = (&todo, &next);
            let hash = opts.hash_mb;
            scope.spawn(move || {
                let mut solver = Solver::new(hash);
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= todo.len() {
                        break;
                    }
                    for &(k, score) in &todo[start..(start + CHUNK).min(todo.len())] {
                        let p = position_from_key::<W, H, B>(k).expect("enumerated keys decode");
                        solver.reset_nodes();
                        let e = solve_entry(&mut solver, &p, score);
                        if tx.send((k, e, solver.nodes())).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        let (mut done, mut nodes) = (0usize, 0u64);
        let mut last_report = Instant::now();
        let before = part.len() - todo.len();
        for (k, e, n) in rx {
            journal.append(k, e)?;
            known.insert(k, e);
            done += 1;
            nodes += n;
            if last_report.elapsed() >= Duration::from_secs(5) || done == todo.len() {
                last_report = Instant::now();
                let el = solve_started.elapsed();
                let rate = done as f64 / el.as_secs_f64().max(1e-9);
                let left = Duration::from_secs_f64((todo.len() - done) as f64 / rate.max(1e-9));
                writeln!(
                    log,
                    "{}/{} solved ({:.1}%), {:.1} positions/s, {:.1}M nodes/s, elapsed {}, left ~{}",
                    before + done,
                    part.len(),
                    100.0 * (before + done) as f64 / part.len().max(1) as f64,
                    rate,
                    nodes as f64 / el.as_secs_f64().max(1e-9) / 1e6,
                    fmt_duration(el),
                    fmt_duration(left)
                )?;
            }
        }
        Ok(())
    })
}

/// The finishing step of [`build`] and [`merge`], given the exact score of every position with
/// `opts.depth` discs in `known`: the shallower plies by negamax, the main line if asked, the
/// book written to `opts.out` and the journal removed.
fn finish<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
    plies: &[Vec<B>],
    extra: &[B],
    known: HashMap<B, Entry>,
    mut journal: Journal,
    started: Instant,
    log: &mut dyn Write,
) -> io::Result<Book> {
    let mut entries = complete::<W, H, B>(plies, |k| known.get(&k).copied()).ok_or_else(|| {
        io::Error::other("a position of the last ply has no score (journal incomplete)")
    })?;
    entries.extend(extra.iter().filter_map(|k| known.get(k).map(|&e| (*k, e))));
    if opts.line > opts.depth {
        let mut scores: HashMap<B, Entry> = entries.iter().copied().collect();
        for (&k, &e) in &known {
            learn(&mut scores, k, e);
        }
        let line = main_line::<W, H, B>(opts, &mut scores, &mut journal, log)?;
        writeln!(log, "main line: {}", line)?;
        entries = scores.into_iter().collect();
    }
    let settled = settle::<W, H, B>(&mut entries, opts.depth)?;
    if settled > 0 {
        writeln!(
            log,
            "{settled} moves taken from the children instead of the solved entries"
        )?;
    }
    if let Some((k, _)) = entries.iter().find(|(_, e)| e.best == 0) {
        return Err(io::Error::other(format!(
            "the position with key {:#x} has no best move (journal incomplete)",
            k.to_u128()
        )));
    }
    journal.sync()?;
    drop(journal);
    let book = Book::from_entries(W, H, opts.depth, entries);
    book.save(&opts.out)?;
    std::fs::remove_file(journal_path(&opts.out))?;
    writeln!(
        log,
        "wrote {}: {} positions, {} bytes, in {}",
        opts.out.display(),
        book.len(),
        book.to_bytes().len(),
        fmt_duration(started.elapsed())
    )?;
    Ok(book)
}

/// Follows best play from the empty board while the position has at most `opts.line` discs,
/// scoring every move from each line position (solving those not yet known, journalled like
/// the rest) so that the book holds them; ties go to the column nearest the centre, as in
/// [`Solver::move_with_value`]. Returns the line's moves.
fn main_line<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
    scores: &mut HashMap<B, Entry>,
    journal: &mut Journal,
    log: &mut dyn Write,
) -> io::Result<String> {
    let mut solver = Solver::new(opts.hash_mb);
    let mut p = Position::<W, H, B>::new();
    let mut line = String::new();
    let started = Instant::now();
    while p.moves() <= opts.line && !p.is_game_over() {
        let mut best: Option<(usize, i32)> = None;
        for &c in column_order::<W>().iter() {
            if !p.can_play(c) {
                continue;
            }
            let s = crate::score::of_move(&p, c, |q| {
                let k = q.symmetric_key().0;
                let known = scores.get(&k).copied();
                if let Some(e) = known.filter(|e| e.best != 0) {
                    return Ok(e.score as i32);
                }
                let e = solve_entry(&mut solver, q, known.map(|e| e.score as i32));
                journal.append(k, e)?;
                scores.insert(k, e);
                Ok::<i32, io::Error>(e.score as i32)
            })?;
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((c, s));
            }
        }
        let (c, s) = best.expect("a game that is not over has a move");
        writeln!(
            log,
            "line ply {}: {} scores {s} ({} in)",
            p.moves() + 1,
            c + 1,
            fmt_duration(started.elapsed())
        )?;
        line.push_str(&(c + 1).to_string());
        p.play_col(c);
    }
    Ok(line)
}

/// What `vier book verify` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifySummary {
    pub checked: usize,
    pub mismatches: usize,
}

/// Re-solves `sample` entries of `book` picked by `seed` (every entry if the book is smaller),
/// with a solver that does not use any book; one line per entry to `out`.
pub fn verify(
    book: &Book,
    sample: usize,
    seed: u64,
    hash_mb: usize,
    out: &mut dyn Write,
) -> io::Result<VerifySummary> {
    let size = Size::new(book.width(), book.height())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    let entries: Vec<(BookKey, Entry)> = book.values().collect();
    let mut picks: Vec<usize> = if sample >= entries.len() {
        (0..entries.len()).collect()
    } else {
        let mut rng = Rng::new(seed);
        let mut set = std::collections::BTreeSet::new();
        while set.len() < sample {
            set.insert((rng.next_u64() % entries.len() as u64) as usize);
        }
        set.into_iter().collect()
    };
    // the deepest (cheapest) first, so that the table helps the shallower ones
    picks.sort_by_key(|&i| std::cmp::Reverse(key_discs(entries[i].0, book.width(), book.height())));
    struct Verify<'a>(&'a [(BookKey, Entry)], Vec<usize>, usize, &'a mut dyn Write);
    impl SizedJob for Verify<'_> {
        type Output = io::Result<VerifySummary>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            let Verify(entries, picks, hash_mb, out) = self;
            let mut solver = Solver::new(hash_mb);
            let mut sum = VerifySummary::default();
            for i in picks {
                let (key, entry) = entries[i];
                let stored = entry.score as i32;
                let Some(p) = key_as::<B>(key).and_then(position_from_key::<W, H, B>) else {
                    sum.checked += 1;
                    sum.mismatches += 1;
                    writeln!(out, "{key:#x} is not a position MISMATCH")?;
                    continue;
                };
                let moves = p.to_move_string().unwrap_or_else(|| format!("{key:#x}"));
                let s = solver.solve(&p).expect("no limits are set");
                sum.checked += 1;
                write!(
                    out,
                    "{} book {stored} solver {s}",
                    crate::book::display_moves(&moves)
                )?;
                // the stored move must keep the solver's score (a version-1 book has no moves)
                let keeps = entry.best_col().map(|c| {
                    p.can_play(c)
                        && crate::score::of_move(&p, c, |q| {
                            let at_most = solver.value_at_most(q, -s).expect("no limits are set");
                            Ok::<i32, ()>(if at_most { -s } else { -s + 1 })
                        }) == Ok(s)
                });
                if let Some(c) = entry.best_col() {
                    write!(out, " best {}", c + 1)?;
                }
                if s != stored || keeps == Some(false) {
                    sum.mismatches += 1;
                    write!(out, " MISMATCH")?;
                }
                writeln!(out)?;
            }
            Ok(sum)
        }
    }
    size.run(Verify(&entries, picks, hash_mb, out))
}

/// The symmetric keys of every position with exactly `d` discs, for `d` in `0..=depth`, whose
/// game is not over (reached only through positions whose game was not over), each mirror pair
/// once. Each ply's keys come in depth-first order from the empty board, so neighbours share
/// most of their moves (and a solver's table serves them all).
pub fn enumerate<const W: usize, const H: usize, B: Bitboard>(depth: u32) -> Vec<Vec<B>> {
    let mut plies: Vec<Vec<B>> = vec![Vec::new(); depth as usize + 1];
    let mut seen: Vec<HashSet<B>> = vec![HashSet::new(); depth as usize + 1];
    fn walk<const W: usize, const H: usize, B: Bitboard>(
        p: &Position<W, H, B>,
        depth: u32,
        plies: &mut [Vec<B>],
        seen: &mut [HashSet<B>],
    ) {
        let d = p.moves() as usize;
        let key = p.symmetric_key().0;
        if !seen[d].insert(key) {
            return;
        }
        plies[d].push(key);
        if p.moves() == depth {
            return;
        }
        for c in 0..W {
            if p.can_play(c) && !p.is_winning_move(c) {
                let mut q = *p;
                q.play_col(c);
                if !q.is_full() {
                    walk(&q, depth, plies, seen);
                }
            }
        }
    }
    walk(&Position::<W, H, B>::new(), depth, &mut plies, &mut seen);
    plies
}

/// Scores every position of `plies` (from [`enumerate`]) above the last ply by negamax over its
/// children, given the entries `leaf` of the last ply's positions; the best move is the
/// best-scoring column nearest the centre. `None` if a needed score is missing.
pub fn complete<const W: usize, const H: usize, B: Bitboard>(
    plies: &[Vec<B>],
    leaf: impl Fn(B) -> Option<Entry>,
) -> Option<Vec<(B, Entry)>> {
    let depth = plies.len() - 1;
    let mut known: HashMap<B, Entry> = HashMap::new();
    for &k in &plies[depth] {
        known.insert(k, leaf(k)?);
    }
    for d in (0..depth).rev() {
        for &k in &plies[d] {
            // decoded from its symmetric key: its columns are the entry's
            let p = position_from_key::<W, H, B>(k)?;
            let e = from_children(&p, |q| known.get(&q).map(|e| e.score as i32))?;
            known.insert(k, e);
        }
    }
    Some(known.into_iter().collect())
}

/// The entry of `p` (decoded from its symmetric key, so that its columns are the entry's) by
/// negamax over its children, whose exact scores `score_of` gives by symmetric key: the best
/// score of its moves, and the column nearest the centre with that score (with a win at once,
/// the centre-most winning column, as [`Solver::best_column`] answers). `None` if a child
/// needed is unknown.
fn from_children<const W: usize, const H: usize, B: Bitboard>(
    p: &Position<W, H, B>,
    score_of: impl Fn(B) -> Option<i32>,
) -> Option<Entry> {
    let mut best: Option<(usize, i32)> = None;
    for &c in column_order::<W>().iter().filter(|&&c| p.can_play(c)) {
        if p.can_win_next() && !p.is_winning_move(c) {
            continue;
        }
        let s = crate::score::of_move(p, c, |q| score_of(q.symmetric_key().0).ok_or(())).ok()?;
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((c, s));
        }
    }
    best.map(|(c, s)| Entry::new(s, Some(c)))
}

/// Entries from the full-width depth on whose children are all in the book take their move
/// from those children, as the shallower plies do. The book then follows its one rule for the
/// best move (the centre-most column with the score) whichever binary or build solved an
/// entry: a journal or an older book may hold a move that kept the score but broke a tie
/// otherwise. A solved score that its children contradict is refused: one of them is wrong.
/// Returns how many moves changed.
fn settle<const W: usize, const H: usize, B: Bitboard>(
    entries: &mut [(B, Entry)],
    depth: u32,
) -> io::Result<usize> {
    let scores: HashMap<B, i32> = entries.iter().map(|(k, e)| (*k, e.score as i32)).collect();
    let mut changed = 0;
    for (k, e) in entries.iter_mut() {
        if key_discs(k.to_u128(), W, H) < depth {
            continue;
        }
        let Some(p) = position_from_key::<W, H, B>(*k) else {
            continue;
        };
        let Some(derived) = from_children(&p, |q| scores.get(&q).copied()) else {
            continue;
        };
        if derived.score != e.score {
            let moves = p
                .to_move_string()
                .unwrap_or_else(|| format!("key {:#x}", k.to_u128()));
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "position {moves}: solved score {} but its children give {}",
                    e.score, derived.score
                ),
            ));
        }
        if derived.best != e.best {
            changed += 1;
            *e = derived;
        }
    }
    Ok(changed)
}
