//! The daemon's metrics, written in Prometheus' text exposition format.
//!
//! Counters of jobs by proof kind and outcome, of partitions the fallback
//! backend proved for completed jobs (a device that fails quietly, its work
//! carried by the CPU at a fraction of the speed, shows there first), of
//! jobs proven between another job's partitions, and a
//! histogram per stage
//! (queue wait, circuit load, witness, proving, finishing, total) are kept
//! here as jobs end; gauges (queue depth, device and process memory) are
//! read when the text is rendered, from the snapshot the caller passes.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

use crate::jobs::{Outcome, Timings};

/// Upper bounds of the duration histograms, seconds: from a 2 KiB
/// partition on a GPU to a 64 GiB sector on a CPU.
const BUCKETS: [f64; 14] = [
    0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0,
];

#[derive(Debug, Clone, Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Histogram {
    fn observe(&mut self, duration: Duration) {
        let seconds = duration.as_secs_f64();
        for (count, bound) in self.counts.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *count += 1;
            }
        }
        self.count += 1;
        self.sum += seconds;
    }
}

/// Gauges read at rendering time.
#[derive(Debug, Clone, Default)]
pub struct Gauges {
    /// Per proof kind: (queued, running).
    pub queues: BTreeMap<&'static str, (u64, u64)>,
    /// Per device.
    pub devices: Vec<DeviceGauges>,
    /// Bytes resident for loaded circuits and reserved by running jobs.
    pub memory_resident: u64,
    /// See `memory_resident`.
    pub memory_reserved: u64,
    /// The memory budget.
    pub memory_budget: u64,
    /// The process's resident and peak resident memory.
    pub rss: u64,
    /// See `rss`.
    pub peak_rss: u64,
    /// The process's threads and open file descriptors: a daemon that
    /// runs for weeks must not gain either with every job.
    pub threads: u64,
    /// See `threads`.
    pub open_files: u64,
    /// Seconds since start.
    pub uptime: u64,
    /// Circuits evicted to make room since start.
    pub circuit_evictions: u64,
}

/// A device's gauges.
#[derive(Debug, Clone, Default)]
pub struct DeviceGauges {
    /// Its index in the backend.
    pub index: u32,
    /// Its name.
    pub name: String,
    /// Its memory, bytes (0 where the backend does not say).
    pub memory_total: u64,
    /// See `memory_total`.
    pub memory_free: u64,
    /// Its failures since start: set-ups, and partitions no fallback
    /// proved ([`crate::suspension`]).
    pub failures: u64,
    /// Seconds its suspension has left (0: it takes jobs).
    pub suspended_seconds: u64,
}

/// Counters and histograms of finished jobs.
#[derive(Debug, Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    jobs: BTreeMap<(&'static str, &'static str), u64>,
    fallback_partitions: BTreeMap<&'static str, u64>,
    interleaved: BTreeMap<&'static str, u64>,
    stages: BTreeMap<(&'static str, &'static str), Histogram>,
}

impl Metrics {
    /// Counts a job of `kind` that ended with `outcome`, with its stages
    /// when it completed.
    pub fn job_ended(&self, kind: &'static str, outcome: &Outcome) {
        match outcome {
            Outcome::Completed {
                timings,
                fallback_partitions,
                ..
            } => {
                self.count_job(kind, "completed", Some(timings));
                self.partitions_fell_back(kind, *fallback_partitions);
            }
            Outcome::Failed(_) => self.count_job(kind, "failed", None),
            Outcome::Cancelled => self.count_job(kind, "cancelled", None),
        }
    }

    fn count_job(&self, kind: &'static str, outcome: &'static str, timings: Option<&Timings>) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        *inner.jobs.entry((kind, outcome)).or_default() += 1;
        if let Some(t) = timings {
            for (stage, duration) in [
                ("queue_wait", t.queue_wait),
                ("circuit_load", t.load),
                ("witness", t.synthesis),
                ("prove", t.prove),
                ("finish", t.finish),
                ("total", t.total),
            ] {
                inner
                    .stages
                    .entry((kind, stage))
                    .or_default()
                    .observe(duration);
            }
        }
    }

    /// Counts `partitions` of a completed job of `kind` that its device
    /// failed and the fallback backend proved.
    fn partitions_fell_back(&self, kind: &'static str, partitions: usize) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        *inner.fallback_partitions.entry(kind).or_default() += partitions as u64;
    }

    /// Counts a job of `kind` proven between two partitions of a less
    /// urgent job.
    pub fn job_interleaved(&self, kind: &'static str) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        *inner.interleaved.entry(kind).or_default() += 1;
    }

    /// Jobs of every kind that ended with `outcome`.
    pub fn total(&self, outcome: &str) -> u64 {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner
            .jobs
            .iter()
            .filter(|((_, o), _)| *o == outcome)
            .map(|(_, n)| n)
            .sum()
    }

    /// The exposition text.
    pub fn render(&self, gauges: &Gauges) -> String {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::new();
        let mut lines = Vec::new();
        let name = family(
            &mut out,
            "pce_prover_jobs_total",
            "counter",
            "Jobs ended, by proof kind and outcome.",
        );
        for ((kind, outcome), n) in &inner.jobs {
            lines.push(format!(
                "{name}{{kind=\"{kind}\",outcome=\"{outcome}\"}} {n}"
            ));
        }
        flush(&mut out, &mut lines);
        counter_by_kind(
            &mut out,
            "pce_prover_fallback_partitions_total",
            "Partitions of completed jobs that their device failed and the fallback backend proved, by proof kind.",
            &inner.fallback_partitions,
        );
        counter_by_kind(
            &mut out,
            "pce_prover_interleaved_jobs_total",
            "Jobs proven on a device between two partitions of a less urgent job, by proof kind.",
            &inner.interleaved,
        );
        let name = family(
            &mut out,
            "pce_prover_stage_seconds",
            "histogram",
            "Time per job stage, by proof kind.",
        );
        for ((kind, stage), h) in &inner.stages {
            let labels = format!("kind=\"{kind}\",stage=\"{stage}\"");
            for (count, bound) in h.counts.iter().zip(BUCKETS) {
                lines.push(format!("{name}_bucket{{{labels},le=\"{bound}\"}} {count}"));
            }
            lines.push(format!("{name}_bucket{{{labels},le=\"+Inf\"}} {}", h.count));
            lines.push(format!("{name}_sum{{{labels}}} {}", h.sum));
            lines.push(format!("{name}_count{{{labels}}} {}", h.count));
        }
        flush(&mut out, &mut lines);
        let name = family(
            &mut out,
            "pce_prover_queue_jobs",
            "gauge",
            "Jobs queued or running, by proof kind.",
        );
        for (kind, (queued, running)) in &gauges.queues {
            lines.push(format!(
                "{name}{{kind=\"{kind}\",state=\"queued\"}} {queued}"
            ));
            lines.push(format!(
                "{name}{{kind=\"{kind}\",state=\"running\"}} {running}"
            ));
        }
        flush(&mut out, &mut lines);
        let name = family(
            &mut out,
            "pce_prover_device_memory_bytes",
            "gauge",
            "Device memory, by device.",
        );
        let labels = |device: &DeviceGauges| {
            let name = device.name.replace(['"', '\\'], "");
            format!("device=\"{}\",name=\"{name}\"", device.index)
        };
        for device in &gauges.devices {
            let labels = labels(device);
            let (total, free) = (device.memory_total, device.memory_free);
            lines.push(format!("{name}{{{labels},kind=\"total\"}} {total}"));
            lines.push(format!("{name}{{{labels},kind=\"free\"}} {free}"));
        }
        flush(&mut out, &mut lines);
        for (metric, kind, help, value) in [
            (
                "pce_prover_device_failures_total",
                "counter",
                "Set-ups and partitions that failed on the device (partitions the fallback proved not counted): a GPU that faults.",
                (|d: &DeviceGauges| d.failures) as fn(&DeviceGauges) -> u64,
            ),
            (
                "pce_prover_device_suspended_seconds",
                "gauge",
                "Seconds the device's suspension after its failures has left; 0 while it takes jobs.",
                |d: &DeviceGauges| d.suspended_seconds,
            ),
        ] {
            let name = family(&mut out, metric, kind, help);
            for device in &gauges.devices {
                lines.push(format!("{name}{{{}}} {}", labels(device), value(device)));
            }
            flush(&mut out, &mut lines);
        }
        for (metric, help, value) in [
            (
                "pce_prover_memory_budget_bytes",
                "The daemon's memory budget.",
                gauges.memory_budget,
            ),
            (
                "pce_prover_memory_resident_bytes",
                "Budget held by loaded circuits.",
                gauges.memory_resident,
            ),
            (
                "pce_prover_memory_reserved_bytes",
                "Budget reserved by running jobs.",
                gauges.memory_reserved,
            ),
            (
                "pce_prover_process_resident_bytes",
                "Resident memory of the process.",
                gauges.rss,
            ),
            (
                "pce_prover_process_peak_resident_bytes",
                "Peak resident memory of the process.",
                gauges.peak_rss,
            ),
            (
                "pce_prover_process_threads",
                "Threads of the process.",
                gauges.threads,
            ),
            (
                "pce_prover_process_open_files",
                "Open file descriptors of the process.",
                gauges.open_files,
            ),
            (
                "pce_prover_uptime_seconds",
                "Seconds since the daemon started.",
                gauges.uptime,
            ),
        ] {
            let name = family(&mut out, metric, "gauge", help);
            lines.push(format!("{name} {value}"));
            flush(&mut out, &mut lines);
        }
        let name = family(
            &mut out,
            "pce_prover_circuit_evictions_total",
            "counter",
            "Idle circuits evicted to make room for another circuit or a job (many: the memory budget holds too few of the circuits in use).",
        );
        lines.push(format!("{name} {}", gauges.circuit_evictions));
        flush(&mut out, &mut lines);
        out
    }
}

/// Writes a metric family's header; returns its name.
fn family(out: &mut String, name: &str, kind: &str, help: &str) -> String {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
    name.to_owned()
}

/// A counter family labelled by proof kind alone.
fn counter_by_kind(out: &mut String, name: &str, help: &str, counts: &BTreeMap<&str, u64>) {
    family(out, name, "counter", help);
    for (kind, n) in counts {
        let _ = writeln!(out, "{name}{{kind=\"{kind}\"}} {n}");
    }
}

fn flush(out: &mut String, lines: &mut Vec<String>) {
    for line in lines.drain(..) {
        out.push_str(&line);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_holds_counters_histograms_and_gauges() {
        let metrics = Metrics::default();
        let timings = Timings {
            prove: Duration::from_millis(700),
            total: Duration::from_secs(3),
            ..Timings::default()
        };
        for fallback_partitions in [2, 0] {
            let timings = timings.clone();
            let proof = vec![];
            let completed = Outcome::Completed {
                proof,
                timings,
                fallback_partitions,
            };
            metrics.job_ended("porep", &completed);
        }
        metrics.job_ended("porep", &Outcome::Failed("no".into()));
        metrics.job_interleaved("winning");
        let mut gauges = Gauges {
            peak_rss: 123,
            threads: 17,
            circuit_evictions: 4,
            ..Gauges::default()
        };
        gauges.queues.insert("porep", (2, 1));
        gauges.devices.push(DeviceGauges {
            index: 1,
            name: "GPU \"1\"".into(),
            memory_total: 80,
            memory_free: 60,
            failures: 3,
            suspended_seconds: 240,
        });
        let text = metrics.render(&gauges);
        for line in [
            "pce_prover_device_memory_bytes{device=\"1\",name=\"GPU 1\",kind=\"free\"} 60",
            "pce_prover_device_failures_total{device=\"1\",name=\"GPU 1\"} 3",
            "pce_prover_device_suspended_seconds{device=\"1\",name=\"GPU 1\"} 240",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
        assert!(
            text.contains("pce_prover_jobs_total{kind=\"porep\",outcome=\"completed\"} 2"),
            "{text}"
        );
        assert!(
            text.contains(
                "pce_prover_stage_seconds_bucket{kind=\"porep\",stage=\"prove\",le=\"1\"} 2"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "pce_prover_stage_seconds_bucket{kind=\"porep\",stage=\"prove\",le=\"0.5\"} 0"
            ),
            "{text}"
        );
        assert!(
            text.contains("pce_prover_fallback_partitions_total{kind=\"porep\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("pce_prover_interleaved_jobs_total{kind=\"winning\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("pce_prover_queue_jobs{kind=\"porep\",state=\"queued\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("pce_prover_process_peak_resident_bytes 123"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE pce_prover_process_threads gauge\npce_prover_process_threads 17"),
            "{text}"
        );
        assert!(
            text.contains(
                "# TYPE pce_prover_circuit_evictions_total counter\npce_prover_circuit_evictions_total 4"
            ),
            "{text}"
        );
        assert_eq!(metrics.total("completed"), 2);
        // Every sample line belongs to a family declared before it.
        let declared: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# TYPE "))
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            assert!(declared.iter().any(|d| line.starts_with(d)), "{line}");
        }
    }
}
