//! The load generator of a live bench: ConfigMaps in the scratch namespace, first `--objects` of
//! them created, then creates, updates and deletes at `--rate` on a fixed schedule (open loop:
//! a slow server makes it late, never slower). Each write carries its send time in an
//! annotation, and the resourceVersion the server gave it is kept with the send time, so that
//! the watch latency of every write can be matched with its event, deletions included.

use super::dist::Rng;
use super::error::BenchError;
use super::scratch::RUN_LABEL_KEY;
use crate::cluster::resource_version::ResourceVersion;
use crate::cluster::{ApiResource, Cluster, ClusterError, Operation};
use crate::format::rfc3339_millis;
use crate::template::{Mutation, Template};
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use serde::Serialize;
use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::sync::oneshot;
use tokio::time::Instant;

/// The annotation that carries a write's send time (RFC 3339, milliseconds).
pub const SENT_AT_ANNOTATION: &str = "kubectl-informer/sent-at";
/// Writes in flight at once; more would only queue in the client.
const MAX_IN_FLIGHT: usize = 32;

/// One write and when it was sent.
#[derive(Debug, Clone)]
pub struct SentWrite {
    pub matched_by: MatchBy,
    pub sent: SystemTime,
}

/// How a write's watch event is recognised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchBy {
    /// A create or update: the event carries the resourceVersion the write returned.
    ResourceVersion(String),
    /// A delete (the server answers with a Status, no resourceVersion): its key and which
    /// deletion of that key it was (0 for the first), matched with the DELETED event of the same
    /// rank.
    Deletion(String, usize),
}

/// What the generator did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadStats {
    pub creates: u64,
    pub updates: u64,
    pub deletes: u64,
    /// Writes that failed and were not retried: refused with a conflict, not-found, 429 or 5xx
    /// (none are expected), or without an answer (the server unreachable or too slow).
    pub errors: u64,
    /// The rate asked for and the rate achieved during the churn, writes per second.
    pub requested_rate: f64,
    pub achieved_rate: f64,
    /// The longest a write was sent after its scheduled time, in seconds.
    pub max_late_seconds: f64,
    /// CPU time of the generator's thread during the run (its HTTP and TLS work included: it
    /// has its own connection), to show what making the load costs.
    pub cpu_seconds: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Create,
    Update,
    Delete,
}

/// What a write's answer said of the object: its resourceVersion and generation, and whether it
/// kept the mutated field's new value.
#[derive(Debug, Default)]
struct Answer {
    resource_version: String,
    generation: Option<i64>,
    kept: bool,
}

type WriteFuture =
    Pin<Box<dyn Future<Output = (Op, String, SystemTime, Result<Answer, ClusterError>)> + Send>>;

/// The objects the generator writes.
#[derive(Debug, Clone)]
pub enum Workload {
    /// ConfigMaps, created, updated and deleted (80% updates, 10% each of the others).
    ConfigMaps,
    /// Objects made from a template, created, then only updated by the mutation: the spec
    /// changes a controller reacts to (`bench --react`).
    Template {
        template: Box<Template>,
        mutation: Mutation,
        /// Each update must give the object a new generation (a spec change), else the run
        /// ends: `--react observed-generation` would see reactions to nothing.
        new_generation: bool,
    },
}

/// Where the generator is.
enum Phase {
    /// Creating the initial objects, as fast as the in-flight limit allows.
    Populate {
        created: usize,
    },
    /// Writing on the schedule until `until`.
    Churn {
        start: Instant,
        until: Instant,
        scheduled: u64,
    },
    /// Waiting for the writes in flight.
    Draining,
    Done,
}

/// The generator.
pub struct Generator {
    cluster: Cluster,
    resource: ApiResource,
    workload: Workload,
    namespace: String,
    objects: usize,
    rate: f64,
    rng: Rng,
    live: Vec<String>,
    /// Deleted names, reused oldest first (a name deleted a moment ago is not recreated at
    /// once: its DELETED event may still be on its way).
    gone: VecDeque<String>,
    /// The generation each object's last write gave it (with a template).
    generations: HashMap<String, i64>,
    /// Successful deletions per key so far: the n-th delete of a key is matched with the n-th
    /// DELETED event of that key.
    deletions: HashMap<String, usize>,
    busy: HashSet<String>,
    /// With a run in an existing namespace: its name, the objects' name prefix and the value
    /// of the run label each created object carries.
    run: Option<String>,
    next_name: usize,
    seq: u64,
    in_flight: FuturesUnordered<WriteFuture>,
    /// From when the CPU time counts (the end of the warm-up), and the thread's CPU time then.
    cpu_from: Option<(Instant, Option<f64>)>,
    /// Set to end the churn early (Ctrl-C cut the window): no write is sent after it.
    cut: Arc<AtomicBool>,
    pub stats: LoadStats,
    pub writes: Vec<SentWrite>,
    /// With a template: every write's object, generation and resourceVersion, to match with
    /// the controller's reactions.
    pub reacted_to: Vec<crate::react::Write>,
}

impl Generator {
    pub fn new(cluster: Cluster, plan: LoadPlan) -> Self {
        let LoadPlan {
            resource,
            workload,
            namespace,
            objects,
            rate,
            seed,
            run,
        } = plan;
        Generator {
            cluster,
            resource,
            workload,
            namespace,
            objects,
            rate,
            run,
            rng: Rng::new(seed),
            live: Vec::new(),
            gone: VecDeque::new(),
            generations: HashMap::new(),
            deletions: HashMap::new(),
            busy: HashSet::new(),
            next_name: 0,
            seq: 0,
            cut: Arc::default(),
            in_flight: FuturesUnordered::new(),
            cpu_from: None,
            stats: LoadStats {
                requested_rate: rate,
                ..LoadStats::default()
            },
            writes: Vec::new(),
            reacted_to: Vec::new(),
        }
    }

    /// Creates the initial `--objects`; returns when every create has been answered.
    pub async fn populate(&mut self) -> Result<(), BenchError> {
        let mut phase = Phase::Populate { created: 0 };
        while !matches!(phase, Phase::Done) {
            phase = self.step(phase).await?;
        }
        Ok(())
    }

    /// Writes at `--rate` for `warmup` + `duration`; returns when the last write has been
    /// answered. The thread's CPU time is counted after the warm-up, like the other figures.
    pub async fn churn(&mut self, warmup: Duration, duration: Duration) -> Result<(), BenchError> {
        let start = Instant::now();
        self.cpu_from = Some((start + warmup, None));
        let before = self.stats.creates + self.stats.updates + self.stats.deletes;
        let mut phase = Phase::Churn {
            start,
            until: start + warmup + duration,
            scheduled: 0,
        };
        while !matches!(phase, Phase::Done) {
            phase = self.step(phase).await?;
        }
        let elapsed = start.elapsed().as_secs_f64().max(1e-9);
        let writes = self.stats.creates + self.stats.updates + self.stats.deletes - before;
        self.stats.achieved_rate = writes as f64 / elapsed;
        if let Some((_, Some(at_window))) = self.cpu_from {
            self.stats.cpu_seconds =
                crate::metrics::thread_cpu_seconds().map(|now| now - at_window);
        }
        Ok(())
    }

    async fn step(&mut self, phase: Phase) -> Result<Phase, BenchError> {
        match phase {
            Phase::Populate { created } if created < self.objects => {
                if self.in_flight.len() >= MAX_IN_FLIGHT {
                    self.complete_one().await?;
                    return Ok(Phase::Populate { created });
                }
                let name = self.new_name();
                self.send(Op::Create, name);
                Ok(Phase::Populate {
                    created: created + 1,
                })
            }
            Phase::Populate { .. } => Ok(Phase::Draining),
            Phase::Churn {
                start,
                until,
                scheduled,
            } => {
                let due = start + Duration::from_secs_f64(scheduled as f64 / self.rate);
                if due >= until || self.cut.load(Ordering::Relaxed) {
                    return Ok(Phase::Draining);
                }
                if self.in_flight.len() >= MAX_IN_FLIGHT {
                    self.complete_one().await?;
                    return Ok(Phase::Churn {
                        start,
                        until,
                        scheduled,
                    });
                }
                // Answers that come in before the next write is due are taken in the meantime.
                loop {
                    tokio::select! {
                        _ = tokio::time::sleep_until(due) => break,
                        done = self.in_flight.next(), if !self.in_flight.is_empty() => {
                            if let Some(done) = done {
                                self.record(done)?;
                            }
                        }
                    }
                }
                if let Some((from, cpu @ None)) = &mut self.cpu_from {
                    if Instant::now() >= *from {
                        *cpu = crate::metrics::thread_cpu_seconds();
                    }
                }
                let late = Instant::now().saturating_duration_since(due).as_secs_f64();
                self.stats.max_late_seconds = self.stats.max_late_seconds.max(late);
                let (op, name) = self.choose();
                self.send(op, name);
                Ok(Phase::Churn {
                    start,
                    until,
                    scheduled: scheduled + 1,
                })
            }
            Phase::Draining => {
                if self.in_flight.is_empty() {
                    Ok(Phase::Done)
                } else {
                    self.complete_one().await?;
                    Ok(Phase::Draining)
                }
            }
            Phase::Done => Ok(Phase::Done),
        }
    }

    fn new_name(&mut self) -> String {
        let name = format!(
            "{}-{:06}",
            self.run.as_deref().unwrap_or("bench"),
            self.next_name
        );
        self.next_name += 1;
        name
    }

    /// 80% updates, 10% deletes, 10% creates, on objects with no write in flight; the
    /// population stays near `--objects`.
    fn choose(&mut self) -> (Op, String) {
        if matches!(self.workload, Workload::Template { .. }) && !self.live.is_empty() {
            // Spec changes only, on an object with no write in flight when one is found.
            let mut i = self.rng.below(self.live.len());
            for _ in 0..8 {
                if !self.busy.contains(&self.live[i]) {
                    break;
                }
                i = self.rng.below(self.live.len());
            }
            return (Op::Update, self.live[i].clone());
        }
        let r = self.rng.next_f64();
        let wanted = if self.live.is_empty() || (r >= 0.9 && self.live.len() < self.objects * 2) {
            Op::Create
        } else if r < 0.8 {
            Op::Update
        } else {
            Op::Delete
        };
        if wanted != Op::Create {
            for _ in 0..8 {
                let i = self.rng.below(self.live.len());
                if !self.busy.contains(&self.live[i]) {
                    let name = if wanted == Op::Delete {
                        self.live.swap_remove(i)
                    } else {
                        self.live[i].clone()
                    };
                    return (wanted, name);
                }
            }
        }
        let name = match self.gone.pop_front() {
            Some(name) => name,
            None => self.new_name(),
        };
        (Op::Create, name)
    }

    fn send(&mut self, op: Op, name: String) {
        self.seq += 1;
        self.busy.insert(name.clone());
        let cluster = self.cluster.clone();
        let collection = self.resource.collection_path(Some(&self.namespace));
        let resource = self.resource.qualified_name();
        let namespace = self.namespace.clone();
        let seq = self.seq;
        let workload = self.workload.clone();
        let run = self.run.clone();
        let random = self.rng.next_u64();
        self.in_flight.push(Box::pin(async move {
            let sent = SystemTime::now();
            let stamp = rfc3339_millis(sent);
            let mut mutated = None;
            let body = match (&workload, op) {
                (Workload::ConfigMaps, Op::Create) => serde_json::json!({
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": name, "annotations": {SENT_AT_ANNOTATION: stamp}},
                    "data": {"seq": seq.to_string()},
                }),
                (Workload::ConfigMaps, Op::Update) => serde_json::json!({
                    "metadata": {"annotations": {SENT_AT_ANNOTATION: stamp}},
                    "data": {"seq": seq.to_string()},
                }),
                (Workload::Template { template, .. }, Op::Create) => {
                    template.instance(&name, &[(SENT_AT_ANNOTATION, &stamp)])
                }
                (Workload::Template { mutation, .. }, Op::Update) => {
                    // Only the mutation: an annotation of ours would be a change too (a
                    // Deployment takes any annotation's as a new generation).
                    let value = mutation.value(seq, random);
                    let patch = mutation.patch(&value);
                    mutated = Some((mutation.clone(), value));
                    patch
                }
                (_, Op::Delete) => serde_json::json!({"apiVersion": "v1", "kind": "DeleteOptions"}),
            };
            // In a namespace of others' objects, each of ours says it is ours.
            let mut body = body;
            if let (Op::Create, Some(run)) = (op, &run) {
                body["metadata"]["labels"][RUN_LABEL_KEY] = serde_json::Value::String(run.clone());
            }
            let (method, path, content_type, verb) = match op {
                Op::Create => (http::Method::POST, collection, "application/json", "create"),
                Op::Update => (
                    http::Method::PATCH,
                    format!("{collection}/{name}"),
                    "application/merge-patch+json",
                    "patch",
                ),
                Op::Delete => (
                    http::Method::DELETE,
                    format!("{collection}/{name}"),
                    "application/json",
                    "delete",
                ),
            };
            let op_desc = Operation::new(verb, resource, Some(&namespace));
            let result = cluster
                .send(
                    method,
                    &path,
                    content_type,
                    body.to_string().into_bytes(),
                    &op_desc,
                )
                .await
                .map(|body| answer(&body, mutated.as_ref()));
            (op, name, sent, result)
        }));
    }

    async fn complete_one(&mut self) -> Result<(), BenchError> {
        if let Some(done) = self.in_flight.next().await {
            self.record(done)?;
        }
        Ok(())
    }

    /// Takes in a write's answer: the generator's view of which objects exist and its counts,
    /// the write to match with its event (and with a template, with the controller's reaction).
    fn record(
        &mut self,
        (op, name, sent, result): (Op, String, SystemTime, Result<Answer, ClusterError>),
    ) -> Result<(), BenchError> {
        self.busy.remove(&name);
        match result {
            Ok(answer) => {
                self.check_template_write(op, &name, sent, &answer)?;
                self.record_written(op, name, sent, answer.resource_version);
                Ok(())
            }
            // Conflicts, not-founds, throttling, server errors and a server that cannot be
            // reached or does not answer in time (restarting, or cut off) are counted and the
            // load goes on, with the generator's view of which objects exist kept consistent (a
            // write without an answer may have been made: a later 409 or 404 tells); anything
            // else (forbidden, bad request) ends the run.
            Err(e) => self.record_failed(op, name, e),
        }
    }

    /// With a template: ends the run when an update did not make the change `--mutate` asked
    /// for, else keeps the write (its generation and resourceVersion) to match with the
    /// controller's reaction.
    fn check_template_write(
        &mut self,
        op: Op,
        name: &str,
        sent: SystemTime,
        answer: &Answer,
    ) -> Result<(), BenchError> {
        let Workload::Template {
            mutation,
            new_generation,
            ..
        } = &self.workload
        else {
            return Ok(());
        };
        let before = match answer.generation {
            Some(g) => self.generations.insert(name.to_string(), g),
            None => None,
        };
        if op == Op::Update && *new_generation && before == answer.generation {
            return Err(BenchError::MutationLeavesGeneration {
                path: mutation.path.join("."),
                generation: answer.generation.unwrap_or_default(),
            });
        }
        if op == Op::Update && !answer.kept {
            return Err(BenchError::MutationNotKept {
                path: mutation.path.join("."),
                resource: self.resource.qualified_name(),
            });
        }
        // Reactions are matched by comparing resourceVersions: one that is not a number would
        // leave this write unmatched for no reason the user could see.
        let rv = ResourceVersion::parse(&answer.resource_version).map_err(|e| {
            BenchError::UnorderedWrite {
                name: name.to_string(),
                reason: e.to_string(),
            }
        })?;
        if let Some(generation) = answer.generation {
            self.reacted_to.push(crate::react::Write {
                key: crate::informer::object::object_key(Some(&self.namespace), name),
                sent,
                generation,
                resource_version: rv,
            });
        }
        Ok(())
    }

    /// A write the server made: counted, the object's existence noted, and the write kept to
    /// match with its watch event.
    fn record_written(&mut self, op: Op, name: String, sent: SystemTime, resource_version: String) {
        let matched_by = match op {
            Op::Create => {
                self.stats.creates += 1;
                self.live.push(name);
                MatchBy::ResourceVersion(resource_version)
            }
            Op::Update => {
                self.stats.updates += 1;
                MatchBy::ResourceVersion(resource_version)
            }
            Op::Delete => {
                self.stats.deletes += 1;
                let key = format!("{}/{name}", self.namespace);
                self.gone.push_back(name);
                let nth = self.deletions.entry(key.clone()).or_insert(0);
                *nth += 1;
                MatchBy::Deletion(key, *nth - 1)
            }
        };
        if matched_by != MatchBy::ResourceVersion(String::new()) {
            self.writes.push(SentWrite { matched_by, sent });
        }
    }

    /// A write that failed: counted, and the object put back where the failure says it is; an
    /// error the load cannot go on after is returned.
    fn record_failed(&mut self, op: Op, name: String, e: ClusterError) -> Result<(), BenchError> {
        let code = match e {
            ClusterError::Api { code, .. }
                if code == 404 || code == 409 || code == 429 || code >= 500 =>
            {
                code
            }
            ClusterError::Unreachable { .. }
            | ClusterError::Transport { .. }
            | ClusterError::Timeout { .. } => 0,
            other => return Err(other.into()),
        };
        self.stats.errors += 1;
        match (op, code) {
            (Op::Create, 409) => self.live.push(name),
            (Op::Create, _) => self.gone.push_back(name),
            (Op::Update | Op::Delete, 404) => {
                self.live.retain(|n| n != &name);
                self.gone.push_back(name);
            }
            (Op::Update, _) => {}
            // A delete chosen was taken out of `live`; it is still there.
            (Op::Delete, _) => self.live.push(name),
        }
        Ok(())
    }
}

/// What a run of the generator did, every write it made, and (with a template) every write to
/// match with reactions.
pub struct Generated {
    pub stats: LoadStats,
    pub writes: Vec<SentWrite>,
    pub reacted_to: Vec<crate::react::Write>,
}

/// The creates of the initial objects: to wait for their watch events (and, with a template,
/// for the controller's reactions to them) before the clock starts.
#[derive(Debug, Default)]
pub struct Populated {
    pub writes: Vec<SentWrite>,
    pub reacted_to: Vec<crate::react::Write>,
}

/// What the generator makes: which resource, which objects, how many, how fast.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    pub resource: ApiResource,
    pub workload: Workload,
    pub namespace: String,
    pub objects: usize,
    pub rate: f64,
    pub seed: u64,
    /// In an existing namespace: the run (`bench-x7k2q9`), which names and labels the objects.
    pub run: Option<String>,
}

/// The generator on a thread of its own, with its own runtime and connection: its work stays
/// off the runtime being measured, and its CPU time is its own. Dropping the handle stops it.
pub struct LoadThread {
    /// Ends the churn early: see [`LoadThread::cutter`].
    cut: Arc<AtomicBool>,
    populated: Option<oneshot::Receiver<Result<Populated, BenchError>>>,
    go: Option<oneshot::Sender<(Duration, Duration)>>,
    done: Option<oneshot::Receiver<Result<Generated, BenchError>>>,
    _cancel: oneshot::Sender<()>,
}

impl LoadThread {
    /// Starts the thread, which connects and creates the initial objects.
    pub fn start(cluster: Cluster, plan: LoadPlan) -> std::io::Result<LoadThread> {
        let (populated_tx, populated_rx) = oneshot::channel();
        let (go_tx, go_rx) = oneshot::channel::<(Duration, Duration)>();
        let (done_tx, done_rx) = oneshot::channel();
        let (cancel_tx, cancel_rx) = oneshot::channel::<()>();
        let cut = Arc::new(AtomicBool::new(false));
        let cut_in_thread = cut.clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("load-generator".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let work = async move {
                        let setup = async {
                            let cluster = cluster.connect_again().await?;
                            let mut g = Generator::new(cluster, plan);
                            g.cut = cut_in_thread;
                            g.populate().await?;
                            Ok::<_, BenchError>(g)
                        };
                        let mut g = match setup.await {
                            Ok(mut g) => {
                                let _ = populated_tx.send(Ok(Populated {
                                    writes: std::mem::take(&mut g.writes),
                                    reacted_to: std::mem::take(&mut g.reacted_to),
                                }));
                                g
                            }
                            Err(e) => {
                                let _ = populated_tx.send(Err(e));
                                return;
                            }
                        };
                        let Ok((warmup, duration)) = go_rx.await else {
                            return;
                        };
                        let result = g.churn(warmup, duration).await;
                        let _ = done_tx.send(result.map(|()| Generated {
                            stats: g.stats,
                            writes: g.writes,
                            reacted_to: g.reacted_to,
                        }));
                    };
                    tokio::select! {
                        () = work => {}
                        _ = cancel_rx => {}
                    }
                })
            })?;
        Ok(LoadThread {
            cut,
            populated: Some(populated_rx),
            go: Some(go_tx),
            done: Some(done_rx),
            _cancel: cancel_tx,
        })
    }

    /// Ends the churn before its time (Ctrl-C cut the window): the writes in flight are
    /// answered, no other is sent, and [`LoadThread::run`] returns what was done.
    pub fn cutter(&self) -> Arc<AtomicBool> {
        self.cut.clone()
    }

    /// Waits until the initial objects exist; returns their writes.
    pub async fn populated(&mut self) -> Result<Populated, BenchError> {
        match self.populated.take() {
            Some(rx) => rx.await.unwrap_or_else(|_| Err(stopped())),
            None => Ok(Populated::default()),
        }
    }

    /// Makes the load for `warmup` + `duration`; returns what was done and every write.
    pub async fn run(
        &mut self,
        warmup: Duration,
        duration: Duration,
    ) -> Result<Generated, BenchError> {
        if let Some(go) = self.go.take() {
            let _ = go.send((warmup, duration));
        }
        match self.done.take() {
            Some(rx) => rx.await.unwrap_or_else(|_| Err(stopped())),
            None => Err(stopped()),
        }
    }
}

fn stopped() -> BenchError {
    BenchError::LoadStopped
}

/// What a write's response says: resourceVersion, generation, and whether `mutated` (the
/// mutation and the value written) is there.
fn answer(body: &[u8], mutated: Option<&(Mutation, serde_json::Value)>) -> Answer {
    let Ok(object) = serde_json::from_slice::<serde_json::Value>(body) else {
        return Answer::default();
    };
    Answer {
        resource_version: object["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        generation: object["metadata"]["generation"].as_i64(),
        kept: mutated.is_none_or(|(m, value)| m.read(&object) == Some(value)),
    }
}
