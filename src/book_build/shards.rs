//! One shard of a split build: [`build_shard`] solves one [`ShardSpec`] of the last ply (and of
//! the `--extra` list) into a [`Shard`] file, anywhere, resumable from its journal as a whole
//! build is. The shards are made a book by [`merge`](super::merge).

use super::options::{extra_keys, given_book, BuildOptions};
use super::plies::plan;
use super::solve::{fmt_duration, learn, learn_book, solve_part};
use crate::bits::Bitboard;
use crate::board::SizedJob;
use crate::book::journal::{journal_path, Journal};
use crate::book::shard::{Shard, ShardSpec};
use crate::book::{key_as, Entry};
use std::io::{self, Write};
use std::time::Instant;

/// Solves shard `spec` of a build: the positions with exactly `opts.depth` discs, and those of
/// `opts.extra`, that [`ShardSpec::holds`], written to `opts.out` as a [`Shard`] when all are
/// solved. Resumable from its journal as [`build`](super::build()) is. The main line
/// (`opts.line`) is the merge's business.
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
