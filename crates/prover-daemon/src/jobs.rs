//! The daemon's jobs: a table of every job by id, and the priority queue
//! the device workers take them from.
//!
//! A job's id is the client's request id, so that a client that retries
//! (Curio does, when a call times out) joins the job it already submitted
//! instead of proving the sector twice. A job is queued, then running on a
//! device, then done; its result is kept for a while after, for
//! `AwaitProof` calls and retries that arrive late. A submission under the
//! id of a job is told from a retry by a fingerprint of its request: the
//! same request joins the job, or gets its kept proof; another request is
//! refused while the job runs (it would get the other's proof), and starts
//! a new job once it is done. A job being cancelled is not joined: its
//! retry would end cancelled. The queue is ordered by priority, then by
//! arrival. Every operation holds the table's lock for a few map and heap
//! operations only, never while proving, so status queries answer at once
//! whatever the workers do.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// How urgent a job is; higher first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Background work.
    Low,
    /// Sealing (PoRep, SnapDeals); what an unspecified priority means.
    Normal,
    /// WindowPoSt: late is a fault.
    High,
    /// WinningPoSt: late loses the block.
    Critical,
}

/// How a job ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Proven and verified.
    Completed {
        /// The proof, as the proof kind's chain message carries it.
        proof: Vec<u8>,
        /// Where the time went.
        timings: Timings,
        /// Partitions its device failed and the fallback backend proved.
        fallback_partitions: usize,
    },
    /// Not proven: why.
    Failed(String),
    /// Cancelled by a client or by shutdown.
    Cancelled,
}

/// Where a job's time went.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    /// Waiting in the queue.
    pub queue_wait: Duration,
    /// Loading the circuit (PCE and parameters), when the job had to.
    pub load: Duration,
    /// Generating witnesses.
    pub synthesis: Duration,
    /// Proving and verifying the partitions.
    pub prove: Duration,
    /// Combining and checking the whole proof.
    pub finish: Duration,
    /// From submission to the result.
    pub total: Duration,
}

impl Timings {
    /// Records `load`, the time between leaving the queue and starting to
    /// prove spent loading the circuit, as loading and not as waiting:
    /// `queue_wait` is measured up to the start.
    pub fn count_load(&mut self, load: Duration) {
        self.load = load;
        self.queue_wait = self.queue_wait.saturating_sub(load);
    }
}

/// A job's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Waiting for a worker.
    Queued,
    /// Being proven on a device.
    Running {
        /// The device's index.
        device: u32,
    },
    /// Finished; its outcome is kept for a while.
    Done,
}

/// What a worker gets from the queue.
pub struct Claimed<R> {
    /// The job's id.
    pub id: String,
    /// What to prove.
    pub request: Arc<R>,
    /// Set when the job is cancelled while it runs.
    pub cancel: Arc<AtomicBool>,
    /// When it was submitted.
    pub submitted: Instant,
    /// How urgent it is.
    pub priority: Priority,
}

/// The answer to a submission.
#[derive(Debug, Clone)]
pub struct Submitted {
    /// Jobs ahead of it in the queue (0 when it runs, or is done).
    pub position: usize,
    /// The device it runs on, if it runs.
    pub device: Option<u32>,
    /// Whether a job of that id was already queued or running, or has
    /// proven the same request (its proof is the answer).
    pub joined: bool,
    /// Whether this call queued a new job (neither joined nor refused).
    pub queued: bool,
    /// Why the submission was turned away without a job of its own.
    pub refused: Option<Refusal>,
    /// The outcome of the job that answers it (`None` until it is done),
    /// taken under the table's lock: a later submission under the id, or
    /// the job being forgotten, does not change whose outcome it is.
    pub outcome: Option<OutcomeWatch>,
}

impl Submitted {
    /// A submission turned away for `why`, with no job.
    fn refused(why: Refusal) -> Self {
        Self {
            position: 0,
            device: None,
            joined: false,
            queued: false,
            refused: Some(why),
            outcome: None,
        }
    }
}

/// A receiver of a job's outcome (`None` until it is done).
pub type OutcomeWatch = watch::Receiver<Option<Arc<Outcome>>>;

/// Told of each job as it ends, once, with its proof kind and outcome
/// ([`Jobs::observed`]).
pub type EndObserver = Box<dyn Fn(&'static str, &Outcome) + Send + Sync>;

/// Why a submission is turned away without a job of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The job of that id proves another request.
    #[error("a job of this id proves another request: submit this one under another id")]
    OtherRequest,
    /// The job of that id is being cancelled.
    #[error("the job of this id is being cancelled: submit it again once it has ended")]
    BeingCancelled,
    /// The daemon takes no new job: it is draining the running ones to
    /// exit. Not a job that failed, so that a scheduler counting failures
    /// sends the request elsewhere or again later.
    #[error(
        "the daemon is shutting down: submit to another prover, or again once it has restarted"
    )]
    ShuttingDown,
    /// The inputs of the jobs queued and running hold as much memory as the
    /// daemon allows them ([`Jobs::holding_inputs_up_to`]): taking more
    /// would risk the whole queue to the system's out-of-memory killer.
    #[error(
        "the daemon holds as many jobs' inputs as server.max_input_bytes_held allows: submit \
         again once jobs have ended, or to another prover"
    )]
    InputsFull,
}

/// The memory a job's input holds while the job lives (a 32 GiB PoRep's
/// C1 output: about 50 MB), counted against [`Jobs::holding_inputs_up_to`].
pub trait InputBytes {
    /// Bytes held.
    fn input_bytes(&self) -> u64;
}

/// A job's line in a status report.
#[derive(Debug, Clone)]
pub struct JobSummary {
    /// Its id.
    pub id: String,
    /// Its proof kind.
    pub kind: &'static str,
    /// Its state.
    pub state: State,
    /// How urgent it is.
    pub priority: Priority,
}

struct Entry<R> {
    kind: &'static str,
    /// Its place in the queue: priority, then arrival.
    priority: Priority,
    sequence: u64,
    /// What to prove; `None` once done, and for a request refused at once.
    request: Option<Arc<R>>,
    /// What `request` holds, counted in [`Table::held`] until it is dropped.
    bytes: u64,
    /// The request's fingerprint, to tell a retry from another request.
    fingerprint: u64,
    state: State,
    submitted: Instant,
    finished: Option<Instant>,
    cancel: Arc<AtomicBool>,
    outcome: watch::Sender<Option<Arc<Outcome>>>,
}

/// Queue order: priority first, then arrival (a lower sequence number).
type QueueKey = (Priority, Reverse<u64>, String);

/// The jobs a worker would rather take: those its device is set up for
/// (their circuit loaded and on the device), before older ones of the same
/// priority, as long as the oldest of those has waited less than `for_at_most`.
/// Each switch of circuit costs a device set-up, and where memory holds one
/// circuit at a time a reload (minutes at 32 GiB).
pub struct Preference<'a, R> {
    /// Whether a job's request is one the worker is set up for.
    pub wants: &'a dyn Fn(&R) -> bool,
    /// How long the oldest job of a priority may be passed over.
    pub for_at_most: Duration,
}

struct Table<R> {
    entries: HashMap<String, Entry<R>>,
    queue: BinaryHeap<QueueKey>,
    next_sequence: u64,
    finished: VecDeque<String>,
    closed: bool,
    ended: Option<EndObserver>,
    /// What the inputs of the live jobs hold, bytes.
    held: u64,
}

/// Every job of the daemon.
pub struct Jobs<R> {
    table: Mutex<Table<R>>,
    queued: Condvar,
    keep_results: Duration,
    /// The most the inputs of live jobs may hold.
    input_limit: u64,
}

impl<R> Jobs<R> {
    /// An empty table that keeps finished jobs' results for `keep_results`.
    pub fn new(keep_results: Duration) -> Self {
        Self {
            table: Mutex::new(Table {
                entries: HashMap::new(),
                queue: BinaryHeap::new(),
                next_sequence: 0,
                finished: VecDeque::new(),
                closed: false,
                ended: None,
                held: 0,
            }),
            queued: Condvar::new(),
            keep_results,
            input_limit: u64::MAX,
        }
    }

    /// These jobs, refusing a submission ([`Refusal::InputsFull`]) whose
    /// input would take what the inputs of the jobs queued and running
    /// hold above `bytes`; one is always taken when none is held, however
    /// large.
    pub fn holding_inputs_up_to(mut self, bytes: u64) -> Self {
        self.input_limit = bytes;
        self
    }

    /// These jobs, telling `ended` of each job as it ends: a job ends in
    /// one place whichever way it does (proven, failed, refused at once,
    /// cancelled while queued, at shutdown, or given up on with the
    /// process), so that counts of outcomes agree with what clients hear.
    pub fn observed(
        mut self,
        ended: impl Fn(&'static str, &Outcome) + Send + Sync + 'static,
    ) -> Self {
        self.table
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .ended = Some(Box::new(ended));
        self
    }

    fn lock(&self) -> MutexGuard<'_, Table<R>> {
        // A panic elsewhere while holding the lock leaves the table
        // consistent (every update is a single insertion or field change).
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `request` (whose fingerprint is `fingerprint`) as job `id`,
    /// or joins the job of that id if it is queued or running, or has
    /// proven the same request; see the module's doc for the rest.
    pub fn submit(
        &self,
        id: &str,
        kind: &'static str,
        priority: Priority,
        request: R,
        fingerprint: u64,
    ) -> Submitted
    where
        R: InputBytes,
    {
        let mut table = self.lock();
        table.forget_old(self.keep_results);
        if let Some(answer) = table.existing(id, fingerprint) {
            return answer;
        }
        if table.closed {
            return Submitted::refused(Refusal::ShuttingDown);
        }
        let bytes = request.input_bytes();
        if table.held > 0 && table.held.saturating_add(bytes) > self.input_limit {
            return Submitted::refused(Refusal::InputsFull);
        }
        table.held += bytes;
        let sequence = table.next_sequence;
        table.next_sequence += 1;
        let (outcome, watch) = watch::channel(None);
        table.entries.insert(
            id.to_owned(),
            Entry {
                kind,
                priority,
                sequence,
                request: Some(Arc::new(request)),
                bytes,
                fingerprint,
                state: State::Queued,
                submitted: Instant::now(),
                finished: None,
                cancel: Arc::new(AtomicBool::new(false)),
                outcome,
            },
        );
        table.finished.retain(|old| old != id);
        table
            .queue
            .push((priority, Reverse(sequence), id.to_owned()));
        let position = table.position(id);
        drop(table);
        self.queued.notify_one();
        Submitted {
            position,
            device: None,
            joined: false,
            queued: true,
            refused: None,
            outcome: Some(watch),
        }
    }

    /// Records job `id` as failed at once with `message` (a request, whose
    /// fingerprint is `fingerprint`, that cannot be proven), unless a job
    /// of that id is queued or running or has proven the same request,
    /// which [`Jobs::submit`] would answer the same way.
    pub fn reject(
        &self,
        id: &str,
        kind: &'static str,
        message: String,
        fingerprint: u64,
    ) -> Submitted {
        let mut table = self.lock();
        table.forget_old(self.keep_results);
        if let Some(answer) = table.existing(id, fingerprint) {
            return answer;
        }
        // As for any submission once the daemon stops: no job at all.
        if table.closed {
            return Submitted::refused(Refusal::ShuttingDown);
        }
        let (outcome, watch) = watch::channel(None);
        // Never in the queue: it ends as it is entered, under the lock.
        table.entries.insert(
            id.to_owned(),
            Entry {
                kind,
                priority: Priority::Low,
                sequence: 0,
                request: None,
                bytes: 0,
                fingerprint,
                state: State::Queued,
                submitted: Instant::now(),
                finished: None,
                cancel: Arc::new(AtomicBool::new(false)),
                outcome,
            },
        );
        table.finished.retain(|old| old != id);
        table.finish(id, Outcome::Failed(message));
        Submitted {
            position: 0,
            device: None,
            joined: false,
            queued: false,
            refused: None,
            outcome: Some(watch),
        }
    }

    /// Waits for the most urgent queued job and marks it running on
    /// `device`; `None` once the queue is closed.
    pub fn claim(&self, device: u32) -> Option<Claimed<R>> {
        self.claim_while(device, None, || true)
    }

    /// Like [`Jobs::claim`], taking the jobs `prefer` names first within a
    /// priority, and giving up (`None`) once `keep_waiting` says so when
    /// [`Jobs::wake_workers`] wakes it: a worker idle with a circuit that
    /// was evicted lets go of it.
    pub fn claim_while(
        &self,
        device: u32,
        prefer: Option<&Preference<'_, R>>,
        keep_waiting: impl Fn() -> bool,
    ) -> Option<Claimed<R>> {
        let mut table = self.lock();
        loop {
            if table.closed {
                return None;
            }
            if let Some(job) = table.take_next(device, None, prefer) {
                return Some(job);
            }
            if !keep_waiting() {
                return None;
            }
            table = self.queued.wait(table).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Wakes every worker waiting for a job, to check what
    /// [`Jobs::claim_while`] waits on.
    pub fn wake_workers(&self) {
        // Under the lock, so that no worker is between its check and its
        // wait.
        drop(self.lock());
        self.queued.notify_all();
    }

    /// The most urgent queued job, marked running on `device`, if it is
    /// more urgent than `than`; never waits. A worker asks between two
    /// partitions of a job of priority `than`.
    pub fn claim_above(&self, device: u32, than: Priority) -> Option<Claimed<R>> {
        let mut table = self.lock();
        if table.closed {
            return None;
        }
        table.take_next(device, Some(than), None)
    }

    /// Puts a claimed job back where it was in the queue (a worker that
    /// cannot start it now); a job cancelled meanwhile, or claimed before
    /// the queue closed, ends cancelled instead.
    pub fn requeue(&self, job: Claimed<R>) {
        let mut table = self.lock();
        let closed = table.closed;
        let Some(entry) = table.entries.get_mut(&job.id) else {
            return;
        };
        if closed || job.cancel.load(Ordering::Relaxed) {
            table.finish(&job.id, Outcome::Cancelled);
            return;
        }
        entry.state = State::Queued;
        let key = (entry.priority, Reverse(entry.sequence), job.id);
        table.queue.push(key);
        drop(table);
        self.queued.notify_one();
    }

    /// Records how job `id` ended and wakes whoever awaits it; `false`
    /// if it had already ended (given up on at shutdown) or is unknown.
    pub fn finish(&self, id: &str, outcome: Outcome) -> bool {
        self.lock().finish(id, outcome)
    }

    /// Cancels job `id`: a queued job ends at once, a running one at its
    /// next partition. `None` if there is no such job or it is done;
    /// otherwise whether it was running.
    pub fn cancel(&self, id: &str) -> Option<bool> {
        let mut table = self.lock();
        let entry = table.entries.get_mut(id)?;
        match entry.state {
            State::Done => None,
            State::Running { .. } => {
                entry.cancel.store(true, Ordering::Relaxed);
                Some(true)
            }
            State::Queued => {
                // Its queue key is skipped when it comes up. Ended under
                // the same lock, so that no worker claims it meanwhile.
                table.finish(id, Outcome::Cancelled);
                Some(false)
            }
        }
    }

    /// A receiver of job `id`'s outcome (`None` until it is done), if the
    /// job is known.
    pub fn watch(&self, id: &str) -> Option<OutcomeWatch> {
        self.lock().entries.get(id).map(|e| e.outcome.subscribe())
    }

    /// Stops handing out jobs: queued ones are cancelled, workers' next
    /// claim returns `None`. Returns the ids of the jobs still running.
    pub fn close(&self) -> Vec<String> {
        let mut table = self.lock();
        table.closed = true;
        let queued: Vec<String> = table
            .entries
            .iter()
            .filter(|(_, e)| e.state == State::Queued)
            .map(|(id, _)| id.clone())
            .collect();
        let running = table
            .entries
            .iter()
            .filter(|(_, e)| matches!(e.state, State::Running { .. }))
            .map(|(id, _)| id.clone())
            .collect();
        drop(table);
        self.queued.notify_all();
        for id in queued {
            self.finish(&id, Outcome::Cancelled);
        }
        running
    }

    /// Every job not yet forgotten.
    pub fn summaries(&self) -> Vec<JobSummary> {
        self.lock()
            .entries
            .iter()
            .map(|(id, e)| JobSummary {
                id: id.clone(),
                kind: e.kind,
                state: e.state.clone(),
                priority: e.priority,
            })
            .collect()
    }
}

impl<R> Entry<R> {
    fn device(&self) -> Option<u32> {
        match self.state {
            State::Running { device } => Some(device),
            _ => None,
        }
    }
}

impl<R> Table<R> {
    /// Records how job `id` ended, tells the observer and wakes whoever
    /// awaits it; a job ends once (one given up on at shutdown is
    /// cancelled, whatever its worker says when it stops): `false` if it
    /// had ended, or is unknown.
    fn finish(&mut self, id: &str, outcome: Outcome) -> bool {
        let Some(entry) = self.entries.get_mut(id) else {
            return false;
        };
        if entry.state == State::Done {
            return false;
        }
        entry.state = State::Done;
        entry.finished = Some(Instant::now());
        // Its input (tens of megabytes for a 32 GiB PoRep) is not needed
        // to answer for it.
        if entry.request.take().is_some() {
            self.held -= entry.bytes;
        }
        if let Some(ended) = &self.ended {
            ended(entry.kind, &outcome);
        }
        entry.outcome.send_replace(Some(Arc::new(outcome)));
        self.finished.push_back(id.to_owned());
        true
    }

    /// The answer to a submission under job `id` of a request whose
    /// fingerprint is `fingerprint`, where the job decides it: joined while
    /// it is live or once it has proven the same request, refused while it
    /// proves another or is being cancelled; `None` for a new job.
    fn existing(&self, id: &str, fingerprint: u64) -> Option<Submitted> {
        let entry = self.entries.get(id)?;
        let same = entry.fingerprint == fingerprint;
        let answer = |joined, refused: Option<Refusal>| Submitted {
            position: if joined { self.position(id) } else { 0 },
            device: entry.device(),
            joined,
            queued: false,
            refused,
            outcome: refused.is_none().then(|| entry.outcome.subscribe()),
        };
        match entry.state {
            State::Done => {
                let proven = matches!(
                    entry.outcome.borrow().as_deref(),
                    Some(Outcome::Completed { .. })
                );
                (same && proven).then(|| answer(true, None))
            }
            _ if entry.cancel.load(Ordering::Relaxed) => {
                Some(answer(false, Some(Refusal::BeingCancelled)))
            }
            _ if !same => Some(answer(false, Some(Refusal::OtherRequest))),
            _ => Some(answer(true, None)),
        }
    }

    /// Takes the most urgent queued job off the queue (the oldest, or one
    /// `prefer` names) and marks it running on `device`; only if it is more
    /// urgent than `above`, when given.
    fn take_next(
        &mut self,
        device: u32,
        above: Option<Priority>,
        prefer: Option<&Preference<'_, R>>,
    ) -> Option<Claimed<R>> {
        while let Some(&(priority, _, _)) = self.queue.peek() {
            if above.is_some_and(|floor| priority <= floor) {
                return None;
            }
            let key = self.queue.pop().expect("peeked");
            if !self.is_live(&key) {
                continue;
            }
            let key = match prefer.and_then(|prefer| self.preferred(&key, prefer)) {
                Some(preferred) => {
                    self.queue.retain(|other| *other != preferred);
                    self.queue.push(key);
                    preferred
                }
                None => key,
            };
            let id = key.2;
            let entry = self.entries.get_mut(&id).expect("a live key's job");
            let Some(request) = entry.request.clone() else {
                continue;
            };
            entry.state = State::Running { device };
            return Some(Claimed {
                id,
                request,
                cancel: entry.cancel.clone(),
                submitted: entry.submitted,
                priority,
            });
        }
        None
    }

    /// The oldest queued job `prefer` names of `oldest`'s priority, unless
    /// `oldest` (the oldest of that priority) is one, or has waited too
    /// long to be passed over.
    fn preferred(&self, oldest: &QueueKey, prefer: &Preference<'_, R>) -> Option<QueueKey> {
        let wanted = |key: &QueueKey| {
            self.entries[&key.2]
                .request
                .as_deref()
                .is_some_and(|request| (prefer.wants)(request))
        };
        let waited = self.entries[&oldest.2].submitted.elapsed();
        if wanted(oldest) || waited >= prefer.for_at_most {
            return None;
        }
        self.queue
            .iter()
            .filter(|key| key.0 == oldest.0 && self.is_live(key) && wanted(key))
            .max()
            .cloned()
    }

    /// Queued jobs that will be claimed before `id` (by arrival: a worker
    /// may take a later job of the circuit it has set up first).
    fn position(&self, id: &str) -> usize {
        let Some(key) = self
            .queue
            .iter()
            .find(|key| self.is_live(key) && key.2 == id)
        else {
            return 0;
        };
        self.queue
            .iter()
            .filter(|other| *other > key && self.is_live(other))
            .count()
    }

    /// Whether `key` is a queued job's own (not that of a job cancelled
    /// while queued, or of an earlier job of the same id).
    fn is_live(&self, (_, Reverse(sequence), id): &QueueKey) -> bool {
        self.entries
            .get(id)
            .is_some_and(|e| e.state == State::Queued && e.sequence == *sequence)
    }

    /// Drops finished jobs older than `keep`.
    fn forget_old(&mut self, keep: Duration) {
        while let Some(id) = self.finished.front() {
            let expired = self
                .entries
                .get(id)
                .and_then(|e| e.finished)
                .is_none_or(|at| at.elapsed() >= keep);
            if !expired {
                break;
            }
            let id = self.finished.pop_front().expect("front exists");
            if self
                .entries
                .get(&id)
                .is_some_and(|e| e.state == State::Done)
            {
                self.entries.remove(&id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs() -> Jobs<u32> {
        Jobs::new(Duration::from_secs(60))
    }

    /// A test request's value stands for the bytes its input holds.
    impl InputBytes for u32 {
        fn input_bytes(&self) -> u64 {
            u64::from(*self)
        }
    }

    /// Inputs are taken while what the live jobs' inputs hold stays within
    /// the limit (one always, when none is held), counted until each job
    /// ends; a job refused for it gets none, and a later one fits again.
    #[test]
    fn inputs_beyond_the_limit_are_refused_until_jobs_end() {
        let jobs = jobs().holding_inputs_up_to(100);
        let alone = jobs.submit("huge", "porep", Priority::Normal, 500, 1);
        assert!(alone.queued, "taken when nothing is held");
        let refused = jobs.submit("small", "porep", Priority::Normal, 1, 2);
        assert_eq!(refused.refused, Some(Refusal::InputsFull));
        assert!(jobs.watch("small").is_none());
        let huge = jobs.claim(0).unwrap();
        jobs.finish(&huge.id, Outcome::Failed("done".into()));
        for (id, bytes) in [("a", 60), ("b", 40)] {
            let taken = jobs.submit(id, "porep", Priority::Normal, bytes, 3);
            assert!(taken.queued, "{id}");
        }
        let full = jobs.submit("c", "porep", Priority::Normal, 1, 4);
        assert_eq!(full.refused, Some(Refusal::InputsFull));
        // Running still holds; ended frees.
        let a = jobs.claim(0).unwrap();
        assert_eq!(
            jobs.submit("c", "porep", Priority::Normal, 1, 4).refused,
            Some(Refusal::InputsFull)
        );
        jobs.finish(&a.id, Outcome::Cancelled);
        assert!(jobs.submit("c", "porep", Priority::Normal, 60, 4).queued);
    }

    #[test]
    fn a_worker_idle_with_an_evicted_circuit_is_woken_to_let_go_of_it() {
        let jobs = Arc::new(jobs());
        let loaded = Arc::new(AtomicBool::new(true));
        let worker = {
            let (jobs, loaded) = (jobs.clone(), loaded.clone());
            std::thread::spawn(move || {
                jobs.claim_while(0, None, || loaded.load(Ordering::Relaxed))
                    .map(|job| job.id)
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !worker.is_finished(),
            "it waits while its circuit is loaded"
        );
        loaded.store(false, Ordering::Relaxed);
        jobs.wake_workers();
        assert_eq!(worker.join().unwrap(), None);
        // A queued job is taken whatever the circuit.
        jobs.submit("a", "porep", Priority::Normal, 1, 1);
        assert_eq!(jobs.claim_while(0, None, || false).unwrap().id, "a");
    }

    #[test]
    fn a_worker_takes_jobs_of_its_circuit_first_within_a_priority_for_a_while() {
        // Requests are circuit numbers; the worker has circuit 1 set up.
        let wants = |circuit: &u32| *circuit == 1;
        let order = |for_at_most: Duration| {
            let jobs = jobs();
            jobs.submit("snap-a", "snap", Priority::Normal, 2, 2);
            jobs.submit("porep-b", "porep", Priority::Normal, 1, 1);
            jobs.submit("snap-c", "snap", Priority::Normal, 2, 2);
            jobs.submit("porep-d", "porep", Priority::Normal, 1, 1);
            jobs.submit("wpost-e", "wpost", Priority::High, 3, 3);
            let prefer = Preference {
                wants: &wants,
                for_at_most,
            };
            (0..5)
                .map(|_| jobs.claim_while(0, Some(&prefer), || true).unwrap().id)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            order(Duration::from_secs(600)),
            ["wpost-e", "porep-b", "porep-d", "snap-a", "snap-c"],
            "more urgent first whatever the circuit, then the worker's circuit"
        );
        assert_eq!(
            order(Duration::ZERO),
            ["wpost-e", "snap-a", "porep-b", "snap-c", "porep-d"],
            "the oldest waited too long: arrival order"
        );
    }

    #[test]
    fn urgent_jobs_first_then_arrival_order() {
        let jobs = jobs();
        jobs.submit("a", "porep", Priority::Normal, 1, 1);
        jobs.submit("b", "porep", Priority::Normal, 2, 2);
        let winning = jobs.submit("c", "winning", Priority::Critical, 3, 3);
        assert_eq!(winning.position, 0);
        assert_eq!(jobs.submit("d", "wpost", Priority::High, 4, 4).position, 1);
        let order: Vec<String> = (0..4).map(|_| jobs.claim(0).unwrap().id).collect();
        assert_eq!(order, ["c", "d", "a", "b"]);
    }

    #[test]
    fn between_partitions_only_a_more_urgent_job_is_claimed_and_one_put_back_keeps_its_place() {
        let jobs = jobs();
        jobs.submit("seal", "porep", Priority::Normal, 1, 1);
        let running = jobs.claim(0).unwrap();
        assert_eq!(running.priority, Priority::Normal);
        jobs.submit("seal2", "porep", Priority::Normal, 2, 2);
        assert!(
            jobs.claim_above(0, Priority::Normal).is_none(),
            "not more urgent"
        );
        jobs.submit("wpost", "wpost", Priority::High, 3, 3);
        jobs.submit("winning", "winning", Priority::Critical, 4, 4);
        assert_eq!(jobs.cancel("winning"), Some(false));
        jobs.submit("winning2", "winning", Priority::Critical, 5, 5);
        let urgent = jobs.claim_above(0, Priority::Normal).unwrap();
        assert_eq!(
            (urgent.id.as_str(), urgent.priority),
            ("winning2", Priority::Critical)
        );
        assert!(
            jobs.claim_above(0, Priority::High).is_none(),
            "a WindowPoSt does not go ahead of one"
        );
        assert_eq!(
            jobs.submit("winning2", "winning", Priority::Critical, 5, 5)
                .device,
            Some(0)
        );
        jobs.requeue(urgent);
        assert_eq!(
            jobs.submit("winning2", "winning", Priority::Critical, 5, 5)
                .position,
            0
        );
        let order: Vec<String> = (0..3).map(|_| jobs.claim(1).unwrap().id).collect();
        assert_eq!(order, ["winning2", "wpost", "seal2"]);

        // Put back after a cancel, or once the queue closed: cancelled.
        jobs.submit("late", "winning", Priority::Critical, 6, 6);
        let late = jobs.claim_above(0, Priority::Normal).unwrap();
        jobs.cancel("late");
        jobs.requeue(late);
        assert!(matches!(
            jobs.watch("late").unwrap().borrow().as_deref(),
            Some(Outcome::Cancelled)
        ));
        jobs.submit("last", "winning", Priority::Critical, 7, 7);
        let last = jobs.claim_above(0, Priority::Normal).unwrap();
        jobs.close();
        assert!(jobs.claim_above(0, Priority::Low).is_none());
        jobs.requeue(last);
        assert!(matches!(
            jobs.watch("last").unwrap().borrow().as_deref(),
            Some(Outcome::Cancelled)
        ));
    }

    #[test]
    fn a_job_resubmitted_under_the_id_of_a_cancelled_one_keeps_its_own_place() {
        let jobs = jobs();
        jobs.submit("x", "winning", Priority::Critical, 1, 1);
        jobs.cancel("x");
        jobs.submit("seal", "porep", Priority::Normal, 2, 2);
        jobs.submit("x", "porep", Priority::Low, 3, 3);
        assert_eq!(
            jobs.submit("x", "porep", Priority::Low, 3, 3).position,
            1,
            "behind the sealing job"
        );
        assert!(
            jobs.claim_above(0, Priority::Normal).is_none(),
            "the cancelled job's key does not make the new one urgent"
        );
        let order: Vec<(String, Priority)> = (0..2)
            .map(|_| jobs.claim(0).unwrap())
            .map(|job| (job.id, job.priority))
            .collect();
        assert_eq!(
            order,
            [
                ("seal".to_owned(), Priority::Normal),
                ("x".to_owned(), Priority::Low)
            ]
        );
    }

    #[test]
    fn a_duplicate_id_joins_until_the_job_is_done() {
        let jobs = jobs();
        assert!(!jobs.submit("x", "porep", Priority::Normal, 1, 1).joined);
        assert!(jobs.submit("x", "porep", Priority::Normal, 1, 1).joined);
        let claimed = jobs.claim(3).unwrap();
        let again = jobs.submit("x", "porep", Priority::Normal, 1, 1);
        assert_eq!((again.joined, again.device), (true, Some(3)));
        let watcher = jobs.watch("x").unwrap();
        jobs.finish(&claimed.id, Outcome::Failed("no".into()));
        assert!(matches!(
            watcher.borrow().as_deref(),
            Some(Outcome::Failed(_))
        ));
        assert!(!jobs.submit("x", "porep", Priority::Normal, 1, 1).joined);
    }

    #[test]
    fn cancelling_a_queued_job_skips_it_and_a_running_one_raises_its_flag() {
        let jobs = jobs();
        jobs.submit("a", "porep", Priority::Normal, 1, 1);
        jobs.submit("b", "porep", Priority::Normal, 2, 2);
        assert_eq!(jobs.cancel("a"), Some(false));
        let b = jobs.claim(0).unwrap();
        assert_eq!(b.id, "b");
        assert_eq!(jobs.cancel("b"), Some(true));
        assert!(b.cancel.load(Ordering::Relaxed));
        assert_eq!(jobs.cancel("nobody"), None);
        assert!(matches!(
            jobs.watch("a").unwrap().borrow().as_deref(),
            Some(Outcome::Cancelled)
        ));
    }

    #[test]
    fn closing_cancels_the_queue_and_releases_the_workers() {
        let jobs = Arc::new(jobs());
        jobs.submit("run", "porep", Priority::Normal, 1, 1);
        let _running = jobs.claim(0).unwrap();
        let idle = {
            let jobs = jobs.clone();
            std::thread::spawn(move || jobs.claim(1).is_none())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(jobs.close(), ["run"]);
        assert!(idle.join().unwrap());

        let queued = super::Jobs::new(Duration::from_secs(1));
        queued.submit("q", "porep", Priority::Normal, 1, 1);
        assert!(queued.close().is_empty());
        assert!(matches!(
            queued.watch("q").unwrap().borrow().as_deref(),
            Some(Outcome::Cancelled)
        ));
        // After closing, a new submission gets no job: it is refused, so
        // that it is not counted as a failed job.
        let late = queued.submit("late", "porep", Priority::Normal, 1, 1);
        assert_eq!(late.refused, Some(Refusal::ShuttingDown));
        assert!(late.outcome.is_none() && queued.watch("late").is_none());
    }

    #[test]
    fn the_observer_hears_of_each_job_once_however_it_ends() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let log = heard.clone();
        let jobs = jobs().observed(move |kind, outcome| {
            let outcome = match outcome {
                Outcome::Completed { .. } => "completed",
                Outcome::Failed(_) => "failed",
                Outcome::Cancelled => "cancelled",
            };
            log.lock().unwrap().push(format!("{kind} {outcome}"));
        });
        jobs.reject("bad", "wpost", "unreadable".into(), 0);
        jobs.submit("queued", "porep", Priority::Normal, 1, 1);
        jobs.submit("proven", "porep", Priority::High, 2, 2);
        jobs.submit("given-up", "winning", Priority::Critical, 3, 3);
        jobs.submit("at-close", "snap", Priority::Low, 4, 4);
        assert_eq!(jobs.cancel("queued"), Some(false));
        let given_up = jobs.claim(0).unwrap();
        let proven = jobs.claim(1).unwrap();
        assert!(jobs.finish(&proven.id, Outcome::Failed("device".into())));
        assert!(!jobs.finish(&proven.id, Outcome::Cancelled), "ends once");
        assert_eq!(jobs.close(), ["given-up"]);
        // Shutdown gives up on it; its worker's later word is not counted.
        assert!(jobs.finish(&given_up.id, Outcome::Cancelled));
        let timings = Timings::default();
        let late = Outcome::Completed {
            proof: vec![],
            timings,
            fallback_partitions: 0,
        };
        assert!(!jobs.finish(&given_up.id, late));
        let mut heard = heard.lock().unwrap().clone();
        heard.sort();
        assert_eq!(
            heard,
            [
                "porep cancelled",
                "porep failed",
                "snap cancelled",
                "winning cancelled",
                "wpost failed"
            ]
        );
    }

    #[test]
    fn a_refused_request_is_a_failed_job_at_once() {
        let jobs = jobs();
        let refused = jobs.reject("bad", "wpost", "not supported yet".into(), 0);
        assert!(!refused.joined);
        assert!(matches!(
            jobs.watch("bad").unwrap().borrow().as_deref(),
            Some(Outcome::Failed(m)) if m == "not supported yet"
        ));
        jobs.submit("ok", "porep", Priority::Normal, 1, 1);
        let dup = jobs.reject("ok", "porep", "dup".into(), 0);
        assert_eq!(
            (dup.joined, dup.refused),
            (false, Some(Refusal::OtherRequest))
        );
        assert_eq!(jobs.claim(0).unwrap().id, "ok");
        // Once the daemon stops, a request it cannot prove is refused as
        // any other submission is: no job, not a failed one.
        jobs.close();
        let late = jobs.reject("late", "wpost", "unreadable".into(), 0);
        assert_eq!(late.refused, Some(Refusal::ShuttingDown));
        assert!(jobs.watch("late").is_none());
    }

    #[test]
    fn a_retry_gets_the_kept_proof_and_another_request_waits_for_its_id() {
        let jobs = jobs();
        jobs.submit("x", "porep", Priority::Normal, 1, 1);
        let other = jobs.submit("x", "porep", Priority::Normal, 2, 2);
        assert_eq!(
            (other.joined, other.queued, other.refused),
            (false, false, Some(Refusal::OtherRequest)),
            "another request under a queued job's id would get its proof"
        );
        let claimed = jobs.claim(0).unwrap();
        assert_eq!(*claimed.request, 1);
        jobs.finish(
            &claimed.id,
            Outcome::Completed {
                proof: vec![7],
                timings: Timings::default(),
                fallback_partitions: 0,
            },
        );
        assert!(
            jobs.lock().entries["x"].request.is_none(),
            "a finished job's input is let go"
        );
        let retry = jobs.submit("x", "porep", Priority::Normal, 1, 1);
        assert_eq!((retry.joined, retry.queued), (true, false));
        assert!(matches!(
            jobs.watch("x").unwrap().borrow().as_deref(),
            Some(Outcome::Completed { proof, .. }) if proof == &[7]
        ));
        assert!(
            jobs.claim_above(0, Priority::Low).is_none(),
            "not proven again"
        );
        // Another request once the job is done is a new job.
        assert!(jobs.submit("x", "porep", Priority::Normal, 2, 2).queued);
        let claimed = jobs.claim(0).unwrap();
        assert_eq!(*claimed.request, 2);
        jobs.finish(&claimed.id, Outcome::Failed("no".into()));
        // A failed job's retry proves it again.
        assert!(jobs.submit("x", "porep", Priority::Normal, 2, 2).queued);
    }

    #[test]
    fn a_job_being_cancelled_is_not_joined() {
        let jobs = jobs();
        jobs.submit("x", "porep", Priority::Normal, 1, 1);
        let running = jobs.claim(0).unwrap();
        assert_eq!(jobs.cancel("x"), Some(true));
        let retry = jobs.submit("x", "porep", Priority::Normal, 1, 1);
        assert_eq!(
            (retry.joined, retry.queued, retry.refused),
            (false, false, Some(Refusal::BeingCancelled)),
            "joining it would end the retry cancelled"
        );
        jobs.finish(&running.id, Outcome::Cancelled);
        assert!(jobs.submit("x", "porep", Priority::Normal, 1, 1).queued);
    }

    #[test]
    fn a_job_ends_once() {
        let jobs = jobs();
        jobs.submit("x", "porep", Priority::Normal, 1, 1);
        let running = jobs.claim(0).unwrap();
        jobs.finish(&running.id, Outcome::Cancelled);
        jobs.finish(&running.id, Outcome::Failed("later".into()));
        let outcome = jobs.watch("x").unwrap().borrow().clone();
        assert!(matches!(outcome.as_deref(), Some(Outcome::Cancelled)));
    }

    #[test]
    fn finished_jobs_are_forgotten_after_their_time() {
        let jobs: Jobs<u32> = Jobs::new(Duration::ZERO);
        jobs.submit("a", "porep", Priority::Normal, 1, 1);
        let a = jobs.claim(0).unwrap();
        jobs.finish(&a.id, Outcome::Cancelled);
        jobs.submit("b", "porep", Priority::Normal, 2, 2);
        assert!(jobs.watch("a").is_none());
    }
}
