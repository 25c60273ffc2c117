//! What the tests of the Python package, the page and the front ends' proven values build: the
//! package installed into a virtual environment, and the page's static folder. Each is built
//! under this build's target directory (`CARGO_TARGET_TMPDIR`), without link-time optimisation
//! (the tests time nothing), and reused: a second build redoes only what changed. Test binaries
//! run one after another, so two never build the same folder at once; within one, a `OnceLock`
//! builds each once.

use super::run_checked;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// The virtual environment with the package's build and test requirements, made once (PyPI the
/// first time).
fn environment(tmp: &Path) -> PathBuf {
    let venv = tmp.join("pyvenv");
    let python = venv_python(&venv);
    if !python.exists() {
        run_checked(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "python3 -m venv",
        );
    }
    let ready = Command::new(&python)
        .args(["-c", "import maturin, pytest, pettingzoo, pygame"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ready {
        // pettingzoo's connect_four_v3 imports pygame for its renderer
        run_checked(
            Command::new(&python).args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "maturin>=1.5,<2",
                "pytest",
                "pettingzoo>=1.24",
                "pygame",
            ]),
            "pip install maturin pytest pettingzoo pygame",
        );
    }
    venv
}

/// The Python of a virtual environment with the package installed from this checkout
/// (`pip install .`, as a user runs it), built once per test binary.
pub fn python_with_package() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let root = env!("CARGO_MANIFEST_DIR");
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let venv = environment(tmp);
        let python = venv_python(&venv);
        // maturin's build backend runs the `maturin` program: the environment's, as if
        // activated
        let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .expect("PATH joins");
        // the build requirements already in place (no isolated download) and a cargo target
        // directory that outlives the run
        run_checked(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--no-build-isolation",
                    "--no-deps",
                    "--force-reinstall",
                    ".",
                ])
                .current_dir(root)
                .env("PATH", path)
                .env("CARGO_TARGET_DIR", tmp.join("python-target"))
                .env("CARGO_PROFILE_RELEASE_LTO", "off")
                .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
            "pip install .",
        );
        python
    })
}

/// The page's static folder, built by tools/web.sh (with this build's `vier` to cut the book),
/// and the module's own file beside it.
pub fn web_site() -> &'static (PathBuf, PathBuf) {
    static SITE: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    SITE.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web");
        std::fs::create_dir_all(&tmp).expect("a folder for the module");
        let installed = run_checked(
            Command::new("rustup").args(["target", "list", "--installed"]),
            "rustup target list --installed",
        );
        assert!(
            installed.lines().any(|t| t == "wasm32-unknown-unknown"),
            "the wasm32-unknown-unknown target is missing: rustup target add \
             wasm32-unknown-unknown (tools/test.sh adds it)"
        );
        let target = tmp.join("target");
        let site = tmp.join("site");
        run_checked(
            Command::new(root.join("tools/web.sh"))
                .arg(&site)
                .env("VIER", env!("CARGO_BIN_EXE_vier"))
                .env("CARGO_TARGET_DIR", &target)
                .env("CARGO_PROFILE_RELEASE_LTO", "off")
                .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
            "tools/web.sh",
        );
        let wasm = target.join("wasm32-unknown-unknown/release/vier_web.wasm");
        (site, wasm)
    })
}
