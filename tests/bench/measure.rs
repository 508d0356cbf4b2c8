//! How the benchmarks write down what they timed, shared by the report, the search bench
//! and the load test.

use std::time::Duration;

pub fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

pub fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

/// A find is measured in microseconds: in milliseconds two places hide a 10% change.
pub fn us(duration: Duration) -> String {
    format!("{:.1} µs", duration.as_secs_f64() * 1e6)
}
