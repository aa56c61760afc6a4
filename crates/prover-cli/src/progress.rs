//! Spinners and progress bars for long steps (hidden when stderr is not a
//! terminal).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// Runs `work` under a spinner saying `message`, then prints how long it
/// took, and whether it failed (the caller says why).
pub fn step<T, E>(message: &str, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
    );
    spinner.set_message(message.to_owned());
    spinner.enable_steady_tick(Duration::from_millis(120));
    let result = work();
    spinner.finish_and_clear();
    let seconds = spinner.elapsed().as_secs_f64();
    match &result {
        Ok(_) => eprintln!("{message}: done in {seconds:.1} s"),
        Err(_) => eprintln!("{message}: failed after {seconds:.1} s"),
    }
    result
}

/// A bar counting proven partitions out of `total` (print beside it with
/// `suspend`: its `println` prints nothing when the bar is hidden).
pub fn partitions_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} partitions proven ({elapsed}, eta {eta})",
        )
        .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}
