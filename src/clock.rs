//! The one clock: time since an arbitrary origin, as the host gives it. A native build reads
//! the operating system's monotonic clock; in the browser (`wasm32-unknown-unknown`, where
//! `std::time::Instant` does not exist) the page gives `performance.now()` as the import
//! `env.now_ms`. Everything that measures time asks [`now`].

use std::time::Duration;

/// Time since the clock's origin (a fixed moment before the first call).
#[cfg(not(target_arch = "wasm32"))]
pub fn now() -> Duration {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(std::time::Instant::now).elapsed()
}

/// Time since the page's origin, in the host's milliseconds.
#[cfg(target_arch = "wasm32")]
pub fn now() -> Duration {
    extern "C" {
        /// Milliseconds, monotonic (`performance.now()`).
        fn now_ms() -> f64;
    }
    // SAFETY: the host's import takes nothing and returns a number.
    let ms = unsafe { now_ms() };
    Duration::from_secs_f64(ms.max(0.0) / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_never_goes_back() {
        let a = now();
        let b = now();
        assert!(b >= a);
    }
}
