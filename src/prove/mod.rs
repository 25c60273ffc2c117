//! `vier prove`: the proof of one position split into jobs that any runner runs (this machine,
//! GNU parallel or xargs, over SSH, a Slurm job array), resumable and verifiable; offline code,
//! compiled with the `prove` feature. docs/prove.md is the user's guide.
//!
//! The front end ([`prove`], in [`prover`]) chooses positions by proof-number search
//! ([`tree`]), writes each job as a file of `vier solve` input with a node budget and the one
//! question the proof asks of its positions ([`jobs`]), and hands it to the dispatcher
//! ([`dispatch`]), which runs it on a runner ([`runner`]), reads back the lines it prints
//! ([`flight`]) and runs it again where they do not check. A position not proven within its
//! budget is expanded and its children handed out, and what its search learnt below it is kept
//! ([`seeds`]) for the jobs below. Everything it knows is in the state folder
//! ([`state`], read back by [`resume`]): killed at any moment and started again, it goes on;
//! [`report`] tells how far it is. At the end the folder holds a certificate ([`cert`]), which
//! [`verify`] ([`verifier`]) checks again without trusting the run: it recomputes the back-up
//! from the rules ([`rules`]) and asks the leaves again through the same dispatcher.

pub mod cert;
pub mod dispatch;
pub mod files;
pub mod flight;
pub mod jobs;
pub mod prover;
pub mod report;
pub mod resume;
pub mod rules;
pub mod runner;
pub mod seeds;
pub mod settings;
pub mod state;
pub mod tree;
pub mod verifier;

pub use dispatch::stop_on_signals;
pub use prover::{prove, status, Outcome, ProveOptions};
pub use settings::{DEFAULT_BUDGET, JOB_HASH_MB};
pub use verifier::{verify, Verified, VerifyOptions};
