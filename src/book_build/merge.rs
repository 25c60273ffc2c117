//! A split build's shards made into the book: [`merge`] checks that the files are the complete,
//! sound shards of one build (each holding exactly its part of the ply and of the `--extra`
//! list), then takes the same finishing step as a whole build, so the merged book is the
//! unsharded one, byte for byte. The main line (`--line`) is added here: it needs the whole ply,
//! and it is one sequential walk.

use super::build::finish;
use super::options::{extra_keys, BuildOptions};
use super::plies::plan;
use super::solve::{learn, reuse_book};
use crate::bits::Bitboard;
use crate::board::SizedJob;
use crate::book::journal::{journal_path, Journal};
use crate::book::shard::{shard_of, Shard, ShardSpec};
use crate::book::{key_as, position_from_key, Book, BookError};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

/// Missing shards a refused merge names (it counts the rest).
const MISSING_SHOWN: usize = 10;

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
/// as [`build`](super::build()) does (same finishing step, same bytes). Nothing is written
/// unless they are.
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
                    crate::notation::display_moves(&moves),
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
