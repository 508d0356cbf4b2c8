//! Start-up work that nothing waits for, on a thread of its own that yields to the protocol.
//!
//! Reading the catalog's texts for search takes some 30 ms of CPU at start, while fitting's
//! answers arrive and the first `tools/list` is asked for: on two cores, run at the same
//! priority, it delayed that answer by milliseconds. At a lower priority it still runs
//! whenever a core is free, which is nearly always, so the first find still finds it done.

use tokio::sync::oneshot;

/// Runs `work` on a new thread at a lower priority; the receiver gets what it returns (or
/// an error, should the thread not start or `work` panic).
pub fn spawn_yielding<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> oneshot::Receiver<T> {
    let (done, receiver) = oneshot::channel();
    let _ = std::thread::Builder::new()
        .name("gitlab-mcp-prepare".into())
        .spawn(move || {
            lower_priority();
            let _ = done.send(work());
        });
    receiver
}

/// Nice 10 for the calling thread (a thread's own setting on Linux); a thread can lower its
/// priority without privileges, never raise it again, hence a thread of its own.
fn lower_priority() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: setpriority only changes the scheduling weight of the calling thread (`who`
    // 0); it touches no memory of this process.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_work_runs_and_hands_back_what_it_made() {
        let answer = spawn_yielding(|| 6 * 7).await;
        assert_eq!(answer, Ok(42));
    }
}
