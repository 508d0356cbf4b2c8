//! Giving memory back to the system after start-up work.
//!
//! glibc's allocator keeps what a thread freed in that thread's arena for the next
//! allocation, returning pages only from an arena's top. Building the search index (on a
//! blocking thread, once) frees about as much as it keeps, scattered between what it
//! keeps, so without a trim the process holds those pages for its whole life.

/// Returns the free pages of every arena to the system (glibc on Linux; elsewhere the
/// allocator's own policy stands).
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim has no preconditions: it only walks the allocator's free lists,
    // under the allocator's own locks, and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
