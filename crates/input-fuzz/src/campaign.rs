//! Running a target over its corpus and over mutated seeds.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::alloc;
use crate::mutate::Mutator;

/// Environment variable: cases per campaign (each target has a default
/// sized for CI).
pub const CASES_ENV: &str = "PCE_FUZZ_CASES";
/// Environment variable: the random stream (default 0, so CI repeats).
pub const SEED_ENV: &str = "PCE_FUZZ_SEED";

/// Kinds of refusal a report lists.
const MOST_COMMON: usize = 12;

/// One campaign at a time per process: the allocation watch and the panic
/// hook are process-wide.
static RUNNING: Mutex<()> = Mutex::new(());
/// The message of the last panic, caught by the campaign's hook.
static PANIC: Mutex<Option<String>> = Mutex::new(None);

/// A bounded fuzzing campaign against one target.
pub struct Campaign {
    name: &'static &'static str,
    cases: usize,
    seed: u64,
    findings: PathBuf,
    allocation_limit: fn(usize) -> usize,
    must_mention: Option<String>,
}

/// Something a case did that no input may make the target do.
#[derive(Debug)]
pub struct Finding {
    /// Which case ("corpus/…" or "seed S case N").
    pub case: String,
    /// What happened.
    pub what: String,
    /// Where the input was saved.
    pub saved: PathBuf,
}

/// What a campaign saw.
#[derive(Debug, Default)]
pub struct Report {
    /// The campaign's name.
    pub name: String,
    /// Cases run, corpus included.
    pub cases: usize,
    /// Inputs the target accepted.
    pub accepted: usize,
    /// Distinct refusals (digits blanked), with how often each came.
    pub refusals: BTreeMap<String, usize>,
    /// Largest single allocation of any case.
    pub largest_allocation: usize,
    /// Panics, oversized allocations, unclear errors.
    pub findings: Vec<Finding>,
}

impl Campaign {
    /// A campaign called `name` (also the name of its corpus folder), of
    /// `default_cases` mutated cases unless `PCE_FUZZ_CASES` says
    /// otherwise; findings are saved under `findings`.
    pub fn new(name: &'static str, default_cases: usize, findings: &Path) -> Self {
        let env = |key: &str| std::env::var(key).ok().and_then(|v| v.parse().ok());
        Self {
            name: Box::leak(Box::new(name)),
            cases: env(CASES_ENV).map_or(default_cases, |n: u64| n as usize),
            seed: env(SEED_ENV).unwrap_or(0),
            findings: findings.join("fuzz-findings").join(name),
            allocation_limit: |len| (64 << 20) + 16 * len,
            must_mention: None,
        }
    }

    /// Sets the largest allocation a case may make, from its input's length
    /// (default: 64 MiB plus 16 bytes per input byte).
    pub fn allocation_limit(mut self, limit: fn(usize) -> usize) -> Self {
        self.allocation_limit = limit;
        self
    }

    /// Every error must contain `text` (the file name, for file readers).
    pub fn errors_must_mention(mut self, text: impl Into<String>) -> Self {
        self.must_mention = Some(text.into());
        self
    }

    /// The checked-in inputs of this target, in name order.
    pub fn corpus(&self) -> Vec<(String, Vec<u8>)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus")
            .join(*self.name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
            .unwrap_or_default();
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let bytes =
                    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                (path.display().to_string(), bytes)
            })
            .collect()
    }

    /// Runs the seeds (each must be accepted), the corpus, then the
    /// mutated cases: each mutates one of
    /// `seeds` with `mutate` and hands the result to `target`, which
    /// accepts it (`Ok`) or refuses it with a message.
    pub fn run(
        &self,
        seeds: &[Vec<u8>],
        mut mutate: impl FnMut(&mut Mutator, &[u8], &[Vec<u8>]) -> Vec<u8>,
        mut target: impl FnMut(&[u8]) -> Result<(), String>,
    ) -> Report {
        assert!(!seeds.is_empty(), "campaign {} has no seeds", self.name);
        let _one_at_a_time = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        assert!(
            alloc::installed(),
            "install input_fuzz::CappedAllocator as the #[global_allocator] of this test"
        );
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            *PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(info.to_string());
        }));
        let mut report = Report {
            name: self.name.to_string(),
            ..Default::default()
        };
        // The seeds first, unmutated: a target that refuses them tests
        // nothing but its first check.
        for (k, seed) in seeds.iter().enumerate() {
            let before = report.accepted;
            self.run_case(
                &mut report,
                k as u64,
                format!("seed input {k}"),
                seed,
                &mut target,
            );
            if report.accepted == before && report.findings.is_empty() {
                report.findings.push(Finding {
                    case: format!("seed input {k}"),
                    what: "a seed input was refused: the target or its seeds are broken".into(),
                    saved: PathBuf::new(),
                });
            }
        }
        let corpus = self.corpus();
        let mut mutator = Mutator::new(self.seed);
        let mutated = (0..self.cases).map(|case| {
            let seed = &seeds[case % seeds.len()];
            let input = mutate(&mut mutator, seed, seeds);
            (format!("seed {} case {case}", self.seed), input)
        });
        for (k, (case, input)) in corpus.into_iter().chain(mutated).enumerate() {
            let number = (seeds.len() + k) as u64;
            self.run_case(&mut report, number, case, &input, &mut target);
        }
        std::panic::set_hook(hook);
        report
    }

    /// Runs one case and records what it did; returns the refusal, if any.
    fn run_case(
        &self,
        report: &mut Report,
        number: u64,
        case: String,
        input: &[u8],
        target: &mut impl FnMut(&[u8]) -> Result<(), String>,
    ) -> Option<String> {
        report.cases += 1;
        alloc::begin_case(self.name, number, (self.allocation_limit)(input.len()));
        let outcome = catch_unwind(AssertUnwindSafe(|| target(input)));
        let allocations = alloc::end_case();
        report.largest_allocation = report.largest_allocation.max(allocations.largest);
        let mut problems = Vec::new();
        let mut refusal = None;
        match outcome {
            Ok(Ok(())) => report.accepted += 1,
            Ok(Err(message)) => {
                if message.trim().is_empty() {
                    problems.push("refused with an empty message".to_owned());
                }
                if let Some(text) = self.must_mention.as_deref() {
                    if !message.contains(text) {
                        problems.push(format!("the error does not name {text:?}: {message}"));
                    }
                }
                *report.refusals.entry(message_class(&message)).or_default() += 1;
                refusal = Some(message);
            }
            Err(_) => {
                let message = PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
                problems.push(format!("panicked: {}", message.unwrap_or_default()));
            }
        }
        if let Some(size) = allocations.over {
            problems.push(format!(
                "allocated {size} bytes at once for a {}-byte input (limit {})",
                input.len(),
                (self.allocation_limit)(input.len())
            ));
        }
        for what in problems {
            let saved = self.findings.join(format!("case-{number}"));
            let _ = std::fs::create_dir_all(&self.findings);
            let _ = std::fs::write(&saved, input);
            report.findings.push(Finding {
                case: case.clone(),
                what,
                saved,
            });
        }
        refusal
    }
}

/// A refusal with each run of digits blanked to one `#`, so that the
/// report counts kinds of errors, not values.
fn message_class(message: &str) -> String {
    let mut class = String::new();
    for c in message.chars() {
        let c = if c.is_ascii_digit() { '#' } else { c };
        if !(c == '#' && class.ends_with('#')) {
            class.push(c);
        }
    }
    if class.chars().count() > 100 {
        class = class.chars().take(100).collect();
        class.push('…');
    }
    class
}

impl Report {
    /// Panics with every finding, if there are any.
    pub fn assert_clean(&self) {
        assert!(
            self.findings.is_empty(),
            "fuzz campaign {}: {} finding(s):\n{}",
            self.name,
            self.findings.len(),
            self.findings
                .iter()
                .map(|f| format!("  {} ({}): {}", f.case, f.saved.display(), f.what))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "fuzz {}: {} cases, {} accepted, {} refused ({} kinds of error), {} findings, largest allocation {} KiB",
            self.name,
            self.cases,
            self.accepted,
            self.refusals.values().sum::<usize>(),
            self.refusals.len(),
            self.findings.len(),
            self.largest_allocation >> 10
        )?;
        let mut common: Vec<_> = self.refusals.iter().collect();
        common.sort_by(|a, b| b.1.cmp(a.1));
        for (class, count) in common.iter().take(MOST_COMMON) {
            writeln!(f, "  {count:>7}  {class}")?;
        }
        if common.len() > MOST_COMMON {
            writeln!(f, "  ({} rarer kinds)", common.len() - MOST_COMMON)?;
        }
        Ok(())
    }
}
