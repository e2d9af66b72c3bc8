//! How many scripts run at once: at most two script runtimes are alive in
//! one process (`PI_CODEMODE_MAX_WORKERS` changes it), as the reference's
//! workers, so parallel scripts cannot hold more than that many 256 MB heaps.
//! Scripts wait for a free runtime in arrival order; a runtime stays taken
//! until its thread ends (a stopped script whose built-in does not check for
//! the stop keeps it until the built-in returns). The wait counts toward
//! `timeout_ms`, and ends after 60 seconds.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::error::AdmitError;
use crate::text;

/// The limit (read once, from the environment).
fn max_workers() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        std::env::var(text::MAX_WORKERS_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(text::DEFAULT_MAX_WORKERS)
    })
}

fn slots() -> Arc<Semaphore> {
    static SLOTS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    SLOTS.get_or_init(|| Arc::new(Semaphore::new(max_workers()))).clone()
}

/// A free runtime, and how long the script waited for it.
pub(crate) struct Slot {
    pub permit: OwnedSemaphorePermit,
    pub waited: Duration,
}

/// Wait for a free runtime; `Err` is the error line of a script that did not
/// start (aborted, its deadline passed, or no runtime within a minute).
pub(crate) async fn admit(abort: &CancellationToken, timeout_ms: Option<u64>) -> Result<Slot, AdmitError> {
    let started = Instant::now();
    let limit = timeout_ms.map(Duration::from_millis).map_or(text::WORKER_WAIT, |t| t.min(text::WORKER_WAIT));
    tokio::select! {
        biased;
        _ = abort.cancelled() => Err(AdmitError::Aborted),
        permit = slots().acquire_owned() => match permit {
            Ok(permit) => Ok(Slot { permit, waited: started.elapsed() }),
            Err(_) => Err(AdmitError::NoWorker { max: max_workers() }),
        },
        _ = tokio::time::sleep(limit) => Err(match timeout_ms {
            Some(ms) if Duration::from_millis(ms) <= text::WORKER_WAIT => AdmitError::TimedOut { ms },
            _ => AdmitError::NoWorker { max: max_workers() },
        }),
    }
}
