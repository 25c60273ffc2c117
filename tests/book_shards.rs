//! Book builds in shards: the merge of the shards is the unsharded book byte for byte (in
//! process, through the command, and through GNU parallel), shards that do not belong together
//! are refused with the reason and nothing written, and an interrupted shard build resumes.

mod common;

use common::run_vier;
use std::path::{Path, PathBuf};
use std::process::Command;
use vier::board::Size;
use vier::book::journal::journal_path;
use vier::book::shard::{shard_of, Shard, ShardSpec};
use vier::book::{key_discs, position_from_key, Book, BookError, Entry, FileKind};
use vier::book_build::{
    build, build_shard, enumerate, merge, BuildOptions, MergeError, MergeOptions,
};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vier-shards-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn opts(size: &str, depth: u32, out: PathBuf) -> BuildOptions {
    BuildOptions {
        size: size.parse().expect("a size"),
        depth,
        threads: 2,
        hash_mb: 16,
        out,
        line: 0,
        extra: Vec::new(),
        book: None,
    }
}

/// Builds all `n` shards of a build into `dir`, returning their paths in shard order.
fn shards(size: &str, depth: u32, n: u32, dir: &Path) -> Vec<PathBuf> {
    (0..n)
        .map(|k| {
            let out = dir.join(format!("{size}-{depth}.{k}of{n}"));
            let spec = ShardSpec::new(k, n).unwrap();
            let shard = build_shard(&opts(size, depth, out.clone()), spec, &mut Vec::new())
                .expect("the shard builds");
            assert_eq!(shard.spec, spec);
            assert!(
                !journal_path(&out).exists(),
                "the journal is removed when done"
            );
            out
        })
        .collect()
}

fn merge_opts(out: PathBuf, line: u32) -> MergeOptions {
    MergeOptions {
        out,
        line,
        hash_mb: 16,
        extra: Vec::new(),
    }
}

fn merge_error(e: &std::io::Error) -> &MergeError {
    e.get_ref()
        .and_then(|e| e.downcast_ref::<MergeError>())
        .unwrap_or_else(|| panic!("not a merge refusal: {e}"))
}

fn assert_same_file(a: &Path, b: &Path) {
    let (x, y) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    assert!(
        x == y,
        "{} ({} bytes) and {} ({} bytes) differ",
        a.display(),
        x.len(),
        b.display(),
        y.len()
    );
}

#[test]
fn merged_shards_are_the_unsharded_book_byte_for_byte() {
    for (size, depth, n) in [("5x4", 8, 3), ("6x4", 8, 4)] {
        let dir = temp_dir(&format!("same-{size}"));
        let whole = dir.join("whole.book");
        let book = build(&opts(size, depth, whole.clone()), &mut Vec::new()).unwrap();
        let parts = shards(size, depth, n, &dir);
        // each shard holds its part of the ply and nothing else; together, the whole ply
        let s: Size = size.parse().unwrap();
        let ply_len: usize = parts
            .iter()
            .map(|p| {
                let shard = Shard::load(p).unwrap();
                assert_eq!((shard.size, shard.depth), (s, depth));
                assert!(shard.entries().all(|(k, _)| match (s.width(), s.height()) {
                    (5, 4) => shard.spec.holds::<5, 4, _>(k),
                    _ => shard.spec.holds::<6, 4, _>(k),
                }));
                shard.len()
            })
            .sum();
        let d = depth as usize;
        let expected = match (s.width(), s.height()) {
            (5, 4) => enumerate::<5, 4, u64>(depth)[d].len(),
            _ => enumerate::<6, 4, u64>(depth)[d].len(),
        };
        assert_eq!(ply_len, expected);
        let merged = dir.join("merged.book");
        // the order of the shards on the command line does not matter
        let mut order = parts.clone();
        order.reverse();
        let mut log = Vec::new();
        let m = merge(&merge_opts(merged.clone(), 0), &order, &mut log).unwrap();
        assert!(String::from_utf8(log).unwrap().contains("wrote"));
        assert_eq!(m, book);
        assert_same_file(&whole, &merged);
        assert!(!journal_path(&merged).exists());
    }
}

/// An `--extra` list splits as the ply does: each shard solves its part of it, and the merge
/// with the same list is the unsharded build with it, byte for byte. Merged without the list,
/// with a longer one, or shards built without it merged with it: refused.
#[test]
fn an_extra_list_is_sharded_and_merged_like_the_ply() {
    let dir = temp_dir("extra");
    let (size, depth, n) = ("5x4", 6, 3);
    let plies = enumerate::<5, 4, u64>(8);
    let moves = |k: u64| {
        position_from_key::<5, 4, _>(k)
            .and_then(|p| p.to_move_string())
            .unwrap()
    };
    let extra: Vec<String> = plies[7]
        .iter()
        .step_by(7)
        .chain(plies[8].iter().step_by(41))
        .map(|&k| moves(k))
        .collect();
    let with = |out: PathBuf, extra: &[String]| BuildOptions {
        extra: extra.to_vec(),
        ..opts(size, depth, out)
    };
    let merging = |out: PathBuf, extra: &[String]| MergeOptions {
        extra: extra.to_vec(),
        ..merge_opts(out, 0)
    };
    let whole = dir.join("whole.book");
    let book = build(&with(whole.clone(), &extra), &mut Vec::new()).unwrap();
    let full_width: usize = plies[..=depth as usize].iter().map(Vec::len).sum();
    assert_eq!(book.len(), full_width + extra.len());
    let parts: Vec<PathBuf> = (0..n)
        .map(|k| {
            let out = dir.join(format!("extra.{k}of{n}"));
            let spec = ShardSpec::new(k, n).unwrap();
            build_shard(&with(out.clone(), &extra), spec, &mut Vec::new()).unwrap();
            // its part of the list, by the ply's rule
            let shard = Shard::load(&out).unwrap();
            let deeper: Vec<u128> = shard
                .entries()
                .map(|(k, _)| k)
                .filter(|&k| key_discs(k, 5, 4) > depth)
                .collect();
            assert!(!deeper.is_empty());
            assert!(deeper.iter().all(|&k| spec.holds::<5, 4, _>(k)));
            out
        })
        .collect();
    let merged = dir.join("merged.book");
    let m = merge(&merging(merged.clone(), &extra), &parts, &mut Vec::new()).unwrap();
    assert_eq!(m, book);
    assert_same_file(&whole, &merged);

    let refused = |opts: &MergeOptions, parts: &[PathBuf], why: &str| {
        let e = merge(opts, parts, &mut Vec::new()).unwrap_err();
        assert!(
            matches!(merge_error(&e), MergeError::WrongEntries { .. }),
            "{e}"
        );
        assert!(e.to_string().contains(why), "{e}");
        assert!(!opts.out.exists());
    };
    refused(
        &merge_opts(dir.join("no-list.book"), 0),
        &parts,
        "which is not a position of shard",
    );
    let mut longer = extra.clone();
    longer.push(moves(plies[8][1]));
    refused(
        &merging(dir.join("longer.book"), &longer),
        &parts,
        "incomplete",
    );
    let plain = shards(size, depth, n, &dir);
    refused(
        &merging(dir.join("plain.book"), &extra),
        &plain,
        "incomplete",
    );
}

/// A shard built over a book (`--book`) takes the scores the book holds instead of solving
/// them again, and comes out the same file; a book that does not load or is of another size
/// is refused before anything is written.
#[test]
fn a_shard_over_a_book_solves_only_what_the_book_lacks() {
    let dir = temp_dir("over-book");
    let (size, depth, n) = ("5x4", 6, 2);
    let base = dir.join("base.book");
    build(&opts(size, depth, base.clone()), &mut Vec::new()).unwrap();
    let plies = enumerate::<5, 4, u64>(8);
    let extra: Vec<String> = plies[8]
        .iter()
        .step_by(13)
        .map(|&k| {
            position_from_key::<5, 4, _>(k)
                .and_then(|p| p.to_move_string())
                .unwrap()
        })
        .collect();
    let layer = |out: PathBuf, book: Option<PathBuf>| BuildOptions {
        extra: extra.clone(),
        book,
        ..opts(size, depth, out)
    };
    for k in 0..n {
        let spec = ShardSpec::new(k, n).unwrap();
        let plain = dir.join(format!("plain.{k}"));
        build_shard(&layer(plain.clone(), None), spec, &mut Vec::new()).unwrap();
        let over = dir.join(format!("over.{k}"));
        let mut log = Vec::new();
        build_shard(&layer(over.clone(), Some(base.clone())), spec, &mut log).unwrap();
        assert_same_file(&plain, &over);
        let log = String::from_utf8(log).unwrap();
        let part = plies[depth as usize]
            .iter()
            .filter(|&&k| spec.holds::<5, 4, _>(k))
            .count();
        let listed = Shard::load(&over).unwrap().len() - part;
        assert_ne!(part, listed);
        // the ply's part all known from the book, the list's part solved
        assert!(
            log.contains(&format!("{part} of {part} already solved")),
            "{log}"
        );
        assert!(!log.contains(&format!("/{part} solved")), "{log}");
        assert!(log.contains(&format!("{listed}/{listed} solved")), "{log}");
    }

    let other = dir.join("6x4.book");
    build(&opts("6x4", 2, other.clone()), &mut Vec::new()).unwrap();
    let damaged = dir.join("damaged.book");
    let mut bytes = std::fs::read(&base).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&damaged, bytes).unwrap();
    for (book, why) in [(other, "is a 6x4 book"), (damaged, "--book")] {
        let out = dir.join("refused");
        let e = build_shard(
            &layer(out.clone(), Some(book)),
            ShardSpec::new(0, n).unwrap(),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(e.to_string().contains(why), "{e}");
        assert!(!out.exists() && !journal_path(&out).exists());
    }
}

/// The main line is added at the merge, as the unsharded build adds it; a shard refuses it.
#[test]
fn the_main_line_is_added_at_the_merge() {
    let dir = temp_dir("line");
    let whole = dir.join("whole.book");
    let mut o = opts("5x4", 6, whole.clone());
    o.line = 12;
    let book = build(&o, &mut Vec::new()).unwrap();
    assert!(
        book.max_moves() > 6,
        "the line goes past the full-width depth"
    );
    let err = build_shard(&o, ShardSpec::new(0, 2).unwrap(), &mut Vec::new()).unwrap_err();
    assert!(err.to_string().contains("merge --line"), "{err}");
    let parts = shards("5x4", 6, 2, &dir);
    let merged = dir.join("merged.book");
    let mut log = Vec::new();
    merge(&merge_opts(merged.clone(), 12), &parts, &mut log).unwrap();
    assert!(String::from_utf8(log).unwrap().contains("main line: "));
    assert_same_file(&whole, &merged);
}

/// The split depends on the key alone and spreads the ply evenly, and it keeps close relatives
/// together: neighbours in depth-first order share a shard far more often than 1 in N.
#[test]
fn shards_split_the_ply_evenly_by_key() {
    let plies = enumerate::<5, 4, u64>(8);
    let ply = &plies[8];
    for n in [2u32, 3, 7] {
        let mut counts = vec![0usize; n as usize];
        for &k in ply {
            counts[shard_of::<5, 4, _>(k, n) as usize] += 1;
        }
        let mean = ply.len() / n as usize;
        for c in &counts {
            assert!(c.abs_diff(mean) * 100 < mean * 15, "{n} shards: {counts:?}");
        }
    }
    // 38% on this ply; each position's own key hashed would give about 1 in 7 (15%)
    let together = ply
        .windows(2)
        .filter(|w| shard_of::<5, 4, _>(w[0], 7) == shard_of::<5, 4, _>(w[1], 7))
        .count();
    assert!(
        together * 10 > (ply.len() - 1) * 3,
        "{together} of {} neighbours share a shard",
        ply.len() - 1
    );
    assert!(ply.iter().all(|&k| shard_of::<5, 4, _>(k, 1) == 0));
    assert_eq!(
        "3/8".parse::<ShardSpec>(),
        Ok(ShardSpec::new(3, 8).unwrap())
    );
    for bad in ["8/8", "1/0", "3", "a/4", "-1/4", "1/4/2", ""] {
        let e = bad.parse::<ShardSpec>().unwrap_err();
        assert!(e.contains("shard"), "{bad}: {e}");
    }
}

/// Refusals: the merge says which shard is wrong and how, and writes nothing.
#[test]
fn shards_that_do_not_belong_together_are_refused() {
    let dir = temp_dir("refuse");
    let parts = shards("5x4", 6, 3, &dir);
    let other_n = shards("5x4", 6, 2, &dir);
    let other_depth = shards("5x4", 5, 3, &dir);
    let other_size = shards("4x4", 6, 3, &dir);
    let out = dir.join("out.book");
    let refused = |files: Vec<PathBuf>| -> MergeError {
        let err = merge(&merge_opts(out.clone(), 0), &files, &mut Vec::new()).unwrap_err();
        assert!(!out.exists(), "nothing written for: {err}");
        assert!(!journal_path(&out).exists(), "no journal for: {err}");
        merge_error(&err).clone()
    };
    let with = |i: usize, f: &PathBuf| {
        let mut v = parts.clone();
        v[i] = f.clone();
        v
    };

    let e = refused(vec![parts[0].clone(), parts[2].clone()]);
    assert_eq!(
        e,
        MergeError::Missing {
            missing: vec![1],
            total: 1,
            count: 3
        }
    );
    assert!(e.to_string().contains("missing shard 1/3"), "{e}");
    // a split into very many shards is named by its first missing ones, not listed whole
    let s0 = Shard::load(&parts[0]).unwrap();
    let spec = ShardSpec::new(7, u32::MAX).unwrap();
    let entries: Vec<(u128, Entry)> = s0
        .entries()
        .filter(|&(k, _)| spec.holds::<5, 4, _>(k))
        .collect();
    let huge = dir.join("huge-split");
    Shard::new(s0.size, 6, spec, s0.ply_positions, entries)
        .save(&huge)
        .unwrap();
    let e = refused(vec![huge]);
    assert!(
        matches!(&e, MergeError::Missing { missing, total, .. } if missing.len() == 10 && *total == u32::MAX - 1),
        "{e:?}"
    );
    assert!(e.to_string().contains("0/4294967295, 1/4294967295"), "{e}");
    assert!(e.to_string().contains("and 4294967284 more"), "{e}");

    let e = refused(vec![parts[0].clone(), parts[1].clone(), parts[1].clone()]);
    assert!(
        matches!(e, MergeError::Duplicate { spec, .. } if spec == ShardSpec::new(1, 3).unwrap())
    );
    assert!(e.to_string().contains("duplicate shard 1/3"), "{e}");

    for (files, says) in [
        (with(1, &other_n[1]), "split in 2, not in 3"),
        (with(2, &other_depth[2]), "depth 5, not 6"),
        (with(1, &other_size[1]), "4x4 board, not 5x4"),
    ] {
        let e = refused(files);
        assert!(matches!(e, MergeError::Foreign { .. }), "{e:?}");
        let m = e.to_string();
        assert!(
            m.contains(says) && m.contains("does not belong with"),
            "{m}"
        );
    }

    // damaged files: cut short, a flipped bit, a book instead of a shard, nothing at all
    let bytes = std::fs::read(&parts[1]).unwrap();
    let damaged = dir.join("broken-shard");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (bytes[..bytes.len() - 4].to_vec(), "truncated"),
        (bytes[..20].to_vec(), "truncated"),
        (
            {
                let mut b = bytes.clone();
                let n = b.len();
                b[n - 2] ^= 0x10;
                b
            },
            "checksum",
        ),
        (
            {
                // a damaged shard number is caught by the checksum too
                let mut b = bytes.clone();
                b[12] = 2;
                b
            },
            "checksum",
        ),
        (
            {
                let mut b = bytes.clone();
                b.push(0);
                b
            },
            "trailing",
        ),
        (
            build(&opts("4x4", 4, dir.join("a.book")), &mut Vec::new())
                .unwrap()
                .to_bytes(),
            "not a vier book shard",
        ),
        (Vec::new(), "truncated"),
    ];
    for (b, says) in cases {
        std::fs::write(&damaged, &b).unwrap();
        let e = refused(with(1, &damaged));
        assert!(
            matches!(&e, MergeError::Damaged { file, .. } if *file == damaged),
            "{e:?}"
        );
        let m = e.to_string();
        assert!(
            m.contains(says) && m.contains("broken-shard"),
            "{says}: {m}"
        );
    }
    let e = refused(with(1, &dir.join("no-such-shard")));
    assert!(matches!(
        e,
        MergeError::Damaged {
            error: BookError::Io {
                file: FileKind::Shard,
                ..
            },
            ..
        }
    ));

    // sound files whose entries are not their part: one left out, one of another shard
    let s1 = Shard::load(&parts[1]).unwrap();
    let size = s1.size;
    let mut entries: Vec<(u128, Entry)> = s1.entries().collect();
    entries.pop();
    Shard::new(size, 6, s1.spec, s1.ply_positions, entries.clone())
        .save(&damaged)
        .unwrap();
    let e = refused(with(1, &damaged));
    assert!(e.to_string().contains("incomplete"), "{e}");
    entries.push(Shard::load(&parts[0]).unwrap().entries().next().unwrap());
    Shard::new(size, 6, s1.spec, s1.ply_positions, entries)
        .save(&damaged)
        .unwrap();
    let e = refused(with(1, &damaged));
    assert!(e.to_string().contains("not a position of shard 1/3"), "{e}");

    assert_eq!(refused(vec![]), MergeError::NoShards);
}

/// An interrupted shard build (its journal holds part of the work and a torn record) resumes
/// without solving again what the journal holds, and ends in the same file as an uninterrupted
/// one.
#[test]
fn an_interrupted_shard_build_resumes_to_the_same_file() {
    let dir = temp_dir("resume");
    let spec = ShardSpec::new(1, 2).unwrap();
    let first = dir.join("first");
    let shard = build_shard(&opts("5x4", 7, first.clone()), spec, &mut Vec::new()).unwrap();
    let second = dir.join("second");
    // a journal of the second format (8-byte keys), as an older vier left it
    let mut journal = b"VIERJRN2\x05\x04".to_vec();
    for (k, e) in shard.entries().take(shard.len() / 2) {
        journal.extend_from_slice(&u64::try_from(k).unwrap().to_le_bytes());
        journal.push(e.score as u8);
        journal.push(e.best);
    }
    journal.extend_from_slice(&[7, 7, 7]); // torn by the interruption
    std::fs::write(journal_path(&second), &journal).unwrap();
    let mut log = Vec::new();
    build_shard(&opts("5x4", 7, second.clone()), spec, &mut log).unwrap();
    let log = String::from_utf8(log).unwrap();
    assert!(
        log.contains(&format!(
            "{} of {} already solved",
            shard.len() / 2,
            shard.len()
        )),
        "{log}"
    );
    assert_same_file(&first, &second);
    assert!(!journal_path(&second).exists());
}

/// The commands: build --shard and merge, their errors with a non-zero exit status.
#[test]
fn shard_and_merge_commands() {
    let dir = temp_dir("cli");
    let arg = |p: &Path| p.to_str().unwrap().to_string();
    let base = [
        "book", "build", "--size", "5x4", "--depth", "7", "--hash", "16",
    ];
    let whole = dir.join("whole.book");
    let o = run_vier(&[&base[..], &["--out", &arg(&whole)]].concat(), "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut parts = Vec::new();
    for k in 0..2 {
        let p = dir.join(format!("s{k}"));
        let spec = format!("{k}/2");
        let o = run_vier(
            &[&base[..], &["--shard", &spec, "--out", &arg(&p)]].concat(),
            "",
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("wrote shard {spec}")));
        parts.push(arg(&p));
    }
    let merged = dir.join("merged.book");
    let merge_args = |files: &[String]| -> Vec<String> {
        ["book", "merge", "--hash", "16", "--out", &arg(&merged)]
            .iter()
            .map(|s| s.to_string())
            .chain(files.iter().cloned())
            .collect()
    };
    let run =
        |args: Vec<String>| run_vier(&args.iter().map(String::as_str).collect::<Vec<_>>(), "");
    let o = run(merge_args(&parts[..1]));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error: missing shard 1/2"));
    assert!(!merged.exists());
    let o = run(merge_args(&parts));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_same_file(&whole, &merged);
    // a shard is no book, and says how it becomes one
    let o = run_vier(&["book", "info", &parts[0]], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("vier book merge"));
    // a bad --shard is a usage error
    let o = run_vier(&[&base[..], &["--shard", "2/2", "--out", "x"]].concat(), "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("numbered 0 to 1"));
    // a shard over a book (here the whole one: nothing is left to solve) is the same file
    let over = dir.join("over");
    let o = run_vier(
        &[
            &base[..],
            &[
                "--shard",
                "0/2",
                "--book",
                &arg(&whole),
                "--out",
                &arg(&over),
            ],
        ]
        .concat(),
        "",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("/s,"));
    assert_same_file(&dir.join("s0"), &over);
    let o = run_vier(
        &[&base[..], &["--book", "no.book", "--out", &arg(&over)]].concat(),
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--book no.book"));
}

/// The recipe of docs/book/building.md on this machine: the shards of a 5x5 book as GNU
/// parallel jobs, then the merge; the result is the unsharded book. tools/test.sh installs
/// parallel; without it this test fails and says how to get it.
#[test]
fn shards_through_gnu_parallel_merge_to_the_unsharded_book() {
    let found = Command::new("parallel").arg("--version").output();
    // moreutils has another program of that name
    assert!(
        found
            .as_ref()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("GNU parallel")),
        "GNU parallel is needed for this test: apt-get install -y parallel (tools/test.sh installs it)"
    );
    let dir = temp_dir("parallel");
    let vier = env!("CARGO_BIN_EXE_vier");
    let o = Command::new("parallel")
        .args([
            "--will-cite",
            "--halt",
            "now,fail=1",
            "-j",
            "2",
            vier,
            "book",
            "build",
            "--size",
            "5x5",
            "--depth",
            "8",
            "--threads",
            "1",
            "--hash",
            "16",
            "--shard",
            "{}/4",
            "--out",
        ])
        .arg(dir.join("5x5.{}"))
        .args([":::", "0", "1", "2", "3"])
        .output()
        .expect("parallel runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let parts: Vec<String> = (0..4)
        .map(|k| dir.join(format!("5x5.{k}")).to_str().unwrap().to_string())
        .collect();
    let merged = dir.join("merged.book");
    let mut args = vec![
        "book",
        "merge",
        "--hash",
        "16",
        "--out",
        merged.to_str().unwrap(),
    ];
    args.extend(parts.iter().map(String::as_str));
    let o = run_vier(&args, "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let whole = dir.join("whole.book");
    build(&opts("5x5", 8, whole.clone()), &mut Vec::new()).unwrap();
    assert_same_file(&whole, &merged);
    assert_eq!(
        Book::load(&merged).unwrap().depth(),
        8,
        "a book of the asked depth"
    );
}
