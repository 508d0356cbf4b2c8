//! Hand-written runners for the actions whose logic YAML cannot say.
//!
//! Each function is named by an action's `handler:` key and called by that action's
//! generated `execute`; it receives the typed params and returns the typed output, so the
//! generated formatter and the dispatcher finish the result as for any other action. Keep
//! this list short and visible:
//!
//! | handler | action | why |
//! |---|---|---|
//! | `file_window` | `repository.file_get` | default ref lookup, base64 decoding, line windows, binary detection |
//! | `file_raw` | `repository.file_raw` | byte budget, binary detection |
//! | `job_log_tail` | `job.log` | tail or window of a long log, ANSI and section markers removed |
//! | `merge_request_diffs` | `merge_request.diffs` | every diff page, one patch under a line budget |
//! | `compare` | `repository.compare` | the same patch budget over a comparison |

mod changes;
mod files;
mod job_log;

pub use changes::{compare, merge_request_diffs};
pub use files::{file_raw, file_window};
pub use job_log::job_log_tail;
