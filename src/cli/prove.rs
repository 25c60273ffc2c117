//! `vier prove`: its arguments, and the proof, status or verification they ask for. The work is
//! the library's (`crate::prove`, with the `prove` feature); docs/prove.md is the guide.

use crate::board::Size;
use crate::prove::settings::{BUDGET_NODES, JOBS, LEARNT, PER_JOB, SAMPLE, SPLIT};
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

/// `vier prove`'s arguments.
#[derive(clap::Args)]
#[cfg_attr(not(feature = "prove"), allow(dead_code))]
pub struct ProveArgs {
    /// The position to prove, as a move string (`-` for the empty board); only to start a
    /// proof: a state folder knows its own.
    root: Option<String>,
    /// The state folder: everything the proof knows (see docs/prove.md). Start again with the
    /// same folder to go on.
    #[arg(long, value_name = "DIR")]
    state: Option<PathBuf>,
    /// Board size, WxH (default 7x6), to start a proof.
    #[arg(long)]
    size: Option<Size>,
    /// Prove the exact score, not only win, draw or loss; to start a proof.
    #[arg(long)]
    exact: bool,
    /// Expand the positions less than N moves from the root at once, without a job (they would
    /// not be proven within the budget); to start a proof (default 1: the root's children are
    /// the first jobs, so that every slot has one).
    #[arg(long, value_name = "N", value_parser = |s: &str| SPLIT.parse(s).map(|n| n as u32))]
    split: Option<u32>,
    /// The most nodes each position of a job may take before it is expanded instead (default:
    /// the last job's in DIR, for a new proof 33554432).
    #[arg(long, value_name = "N", value_parser = |s: &str| BUDGET_NODES.parse(s))]
    budget_nodes: Option<u64>,
    /// How many moves below a position it does not prove each job reports what its search
    /// proved, for the jobs below to start from (0: nothing).
    #[arg(long, value_name = "N", default_value_t = LEARNT.default as u32,
          value_parser = |s: &str| LEARNT.parse(s).map(|n| n as u32))]
    learnt: u32,
    /// The table of each job, MB (default: the last job's in DIR, for a new proof 16, or 64
    /// for the table the jobs on this machine share).
    #[arg(long, value_name = "MB", value_parser = super::table_mb)]
    hash: Option<usize>,
    /// Each job on this machine with a table of its own (deterministic jobs). Without it (and
    /// without --runner and --slurm) the jobs share one, as the threads of one solve share
    /// theirs, in a file in /dev/shm removed when the proof returns.
    #[arg(long)]
    own_tables: bool,
    /// Jobs handed out at once (default: this machine's cores). With --runner, at least the
    /// runner's own (`parallel -j N`): more keep it busy, and may prove more than is needed.
    #[arg(long, value_parser = |s: &str| JOBS.parse(s).map(|n| n as usize))]
    jobs: Option<usize>,
    /// Positions in one job, which share its table (each starts from what those before it
    /// proved).
    #[arg(long, default_value_t = PER_JOB.default as usize,
          value_parser = |s: &str| PER_JOB.parse(s).map(|n| n as usize))]
    per_job: usize,
    /// A command that runs the jobs: it reads one shell command a line and prints what they
    /// print, as GNU parallel (`parallel -j 8`, `--sshlogin ...`) and `xargs -P 8 -d '\n'
    /// -n 1 sh -c` do. Without it (and --slurm), the jobs run on this machine.
    #[arg(long, value_name = "COMMAND", conflicts_with = "slurm")]
    runner: Option<String>,
    /// Run the jobs as Slurm job arrays, submitted with --sbatch; the state folder must be on a
    /// file system the nodes share.
    #[arg(long)]
    slurm: bool,
    /// The command that submits a job array, with any options of yours (`--wait` is added).
    #[arg(long, default_value = "sbatch", value_name = "COMMAND")]
    sbatch: String,
    /// The vier the jobs run (default: this one; on other machines, as found there: `vier`).
    #[arg(long, value_name = "PATH")]
    vier: Option<String>,
    /// Prints the state of the proof in DIR (also while a front end works on it) and exits.
    #[arg(long, conflicts_with_all = ["verify", "root"])]
    status: bool,
    /// Checks the certificate of DIR (or --certificate): its back-up from the rules, and its
    /// leaves solved again.
    #[arg(long)]
    verify: bool,
    /// The certificate to verify, instead of DIR's.
    #[arg(long, value_name = "FILE", requires = "verify")]
    certificate: Option<PathBuf>,
    /// Solve again only N leaves, drawn at random.
    #[arg(long, value_name = "N", requires = "verify",
          value_parser = |s: &str| SAMPLE.parse(s).map(|n| n as usize))]
    sample: Option<usize>,
    /// The seed of the sample.
    #[arg(long, default_value_t = 1, requires = "sample")]
    seed: u64,
}

/// `vier prove`: exit status 0 when proven (or verified), 1 when a certificate does not check
/// or the proof cannot go on, 2 for bad arguments.
#[cfg(feature = "prove")]
pub fn command(args: ProveArgs) -> io::Result<ExitCode> {
    use crate::prove::{self, runner::RunnerSpec, state::Proof};
    let usage = |m: String| {
        eprintln!("error: {m}");
        Ok(ExitCode::from(2))
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args
        .jobs
        .unwrap_or(cores.clamp(JOBS.min as usize, JOBS.max as usize));
    let runner = match (args.runner, args.slurm) {
        (Some(c), _) => RunnerSpec::Command(c),
        (None, true) => RunnerSpec::Slurm(args.sbatch),
        (None, false) => RunnerSpec::Local(jobs),
    };
    let me = std::env::current_exe()?;
    let trusted = args.vier.is_some() || !matches!(runner, RunnerSpec::Local(_));
    let vier = match args.vier {
        Some(v) => v,
        None => me.to_string_lossy().into_owned(),
    };
    // this vier keeps every job and runner it starts: they end when it does, however it ends
    let keeper = cfg!(unix).then(|| me.clone());
    if args.status {
        let Some(dir) = args.state else {
            return usage("--status needs --state DIR".into());
        };
        return Ok(match prove::status(&dir) {
            Ok((line, file)) => {
                println!("{line}");
                print!("{file}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        });
    }
    if args.verify {
        let certificate = match (args.certificate, &args.state) {
            (Some(c), _) => c,
            (None, Some(d)) => d.join("certificate"),
            (None, None) => {
                return usage("--verify needs --state DIR or --certificate FILE".into())
            }
        };
        let work_dir = args
            .state
            .clone()
            .unwrap_or_else(|| certificate.parent().unwrap_or(&certificate).to_path_buf());
        let opts = prove::VerifyOptions {
            certificate,
            sample: args.sample,
            seed: args.seed,
            hash_mb: args.hash.unwrap_or(prove::JOB_HASH_MB),
            jobs,
            per_job: args.per_job,
            runner: runner.clone(),
            vier: vier.clone(),
            work_dir,
            keeper,
        };
        prove::stop_on_signals();
        // what the check trusts besides this vier: the leaves' solver, where it is another's
        let solver = if trusted {
            format!(
                " (the leaves solved by {} running {vier}, trusted)",
                match &runner {
                    RunnerSpec::Local(_) => "this machine".to_string(),
                    r => r.to_string(),
                }
            )
        } else {
            String::new()
        };
        return Ok(match prove::verify(&opts, &mut io::stderr()) {
            Ok(v) => {
                println!(
                    "verified: {} {} {} {}: {} lines, {} leaves, {} solved again, all agree{solver}",
                    v.proof.size,
                    v.proof.root,
                    v.proof.goal.name(),
                    v.value,
                    v.lines,
                    v.leaves,
                    v.solved_again
                );
                ExitCode::SUCCESS
            }
            Err(errors) => {
                for e in &errors {
                    println!("wrong: {e}");
                }
                eprintln!("error: the certificate does not check");
                ExitCode::FAILURE
            }
        });
    }
    let Some(dir) = args.state else {
        return usage(
            "vier prove needs --state DIR (a new or empty folder to start a proof)".into(),
        );
    };
    let proof = if args.root.is_some() || args.size.is_some() || args.exact || args.split.is_some()
    {
        let size = args.size.unwrap_or_default();
        let root = args.root.unwrap_or_else(|| "-".into());
        // the root is checked here, so that a bad one leaves no folder behind
        let root = match prove::rules::canonical(size, &root) {
            Ok(r) => r,
            Err(e) => return usage(format!("the root {e}")),
        };
        let goal = if args.exact {
            prove::rules::Goal::Exact
        } else {
            prove::rules::Goal::Weak
        };
        Some(Proof {
            size,
            root,
            goal,
            split: args.split.unwrap_or(SPLIT.default as u32),
        })
    } else {
        None
    };
    let table_file = match runner {
        RunnerSpec::Local(_) if !args.own_tables => shared_table_file(&dir),
        _ => None,
    };
    let opts = prove::ProveOptions {
        dir,
        proof,
        budget: args.budget_nodes,
        hash_mb: args.hash,
        table_file,
        learnt: Some(args.learnt),
        jobs,
        per_job: args.per_job,
        runner,
        vier,
        report_every: std::time::Duration::from_secs(5),
        keeper,
    };
    prove::stop_on_signals();
    Ok(match prove::prove(&opts, &mut io::stderr()) {
        Ok(outcome) => {
            println!("{}", outcome.line());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    })
}

/// Without the `prove` feature, says how to get it.
#[cfg(not(feature = "prove"))]
pub fn command(_: ProveArgs) -> io::Result<ExitCode> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "this vier was built without vier prove (offline code, compiled on request): \
         `cargo install --locked --path . --features prove` installs one (docs/prove.md); the \
         machines that only run its jobs need none (they run vier solve)",
    ))
}

/// The file of the table a proof's local jobs share: in /dev/shm (memory; none where there is
/// no such folder), named after this process and the state folder, so that two proofs never
/// share one. A proof removes its file when it returns; the files of proofs killed outright
/// (their process gone) are removed here.
#[cfg(feature = "prove")]
fn shared_table_file(state: &std::path::Path) -> Option<PathBuf> {
    let shm = std::path::Path::new("/dev/shm");
    if !shm.is_dir() {
        return None;
    }
    let procs = std::path::Path::new("/proc/self").exists();
    for e in std::fs::read_dir(shm)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|_| procs)
    {
        let name = e.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix("vier-prove-")
            .filter(|n| n.ends_with(".table"))
            .and_then(|n| n.split('-').next()?.parse::<u32>().ok());
        if pid.is_some_and(|p| !std::path::Path::new(&format!("/proc/{p}")).exists()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
    let full = std::path::absolute(state).unwrap_or_else(|_| state.to_path_buf());
    // FNV-1a of the folder's path
    let hash = (full.to_string_lossy().bytes()).fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let pid = std::process::id();
    Some(shm.join(format!("vier-prove-{pid}-{hash:016x}.table")))
}
