//! The informer pipeline without the network or JSON decoding: N watch deltas of pre-parsed
//! ConfigMaps through the informer loop (store update, notification) to K listeners with no-op
//! handlers, until every handler has seen every notification. Run with the listeners
//! instrumented (delivery lag and handler time in HdrHistogram) and without, to measure what the
//! measuring costs; then the same with saturated listeners (buffers full before they drain), and
//! the cost of one clock read.
//!
//!   cargo bench --bench pipeline -- [EVENTS] [LISTENERS]   # default 200000 4

use kubectl_informer::informer::core::InformerCore;
use kubectl_informer::informer::fifo::{Delta, DeltaType, FifoItem};
use kubectl_informer::informer::object::RawObject;
use kubectl_informer::informer::processor::{Notification, Processor};
use serde_json::value::RawValue;
use std::time::Instant;

fn deltas(n: usize) -> Vec<FifoItem> {
    let objects: Vec<RawObject> = (0..n)
        .map(|i| {
            let json = format!(
                r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"cm-{}","namespace":"ns","uid":"u{}","resourceVersion":"{}"}},"data":{{"k":"{i}"}}}}"#,
                i % 1000,
                i % 1000,
                1000 + i
            );
            RawObject::parse(RawValue::from_string(json).unwrap(), None).unwrap()
        })
        .collect();
    let now = tokio::time::Instant::now();
    objects
        .into_iter()
        .enumerate()
        .map(|(i, object)| {
            FifoItem::Delta(Delta {
                delta_type: if i < 1000 {
                    DeltaType::Added
                } else {
                    DeltaType::Updated
                },
                object,
                received_at: now,
                final_state_unknown: false,
            })
        })
        .collect()
}

/// An informer loop with `listeners` no-op listeners, measured or not; spawns their tasks on the
/// current runtime.
fn core_with(listeners: usize, instrumented: bool) -> InformerCore {
    let mut processor = if instrumented {
        Processor::new()
    } else {
        Processor::uninstrumented()
    };
    for i in 0..listeners {
        processor.add_listener(
            &format!("l{i}"),
            None,
            Box::new(|_n: Notification| Box::pin(async {})),
        );
    }
    InformerCore::new(processor)
}

async fn run(items: Vec<FifoItem>, listeners: usize, instrumented: bool) -> f64 {
    let mut core = core_with(listeners, instrumented);
    let started = Instant::now();
    for item in items {
        core.process(item);
    }
    let processor = std::mem::take(&mut core.processor);
    processor.shutdown().await;
    started.elapsed().as_secs_f64()
}

/// What a listener's instrumentation does per notification, in isolation: a clock read, an
/// uncontended lock, two histogram records (the second clock read is shared while busy).
fn instrumentation_ns(n: u32) -> f64 {
    use kubectl_informer::informer::processor::ListenerMetrics;
    use std::sync::Mutex;
    let metrics = Mutex::new(ListenerMetrics::default());
    let received = tokio::time::Instant::now();
    let started = Instant::now();
    for _ in 0..n {
        let now = tokio::time::Instant::now();
        let lag = now.saturating_duration_since(received);
        let mut m = metrics.lock().unwrap();
        m.delivery_lag.record(lag);
        m.handler_time.record(std::hint::black_box(lag));
        m.handled += 1;
    }
    std::hint::black_box(&metrics);
    started.elapsed().as_nanos() as f64 / f64::from(n)
}

/// Saturated listeners: on a current-thread runtime the listener tasks cannot run while the
/// informer loop distributes, so every buffer holds all N notifications before the first is
/// handled; then the time for the listeners to drain them is pure per-notification cost (receive,
/// handler call, and the instrumentation or not), with no parking and waking in between.
fn saturated_drain(items: Vec<FifoItem>, listeners: usize, instrumented: bool) -> f64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let mut core = core_with(listeners, instrumented);
        for item in items {
            core.process(item);
        }
        let processor = std::mem::take(&mut core.processor);
        let started = Instant::now();
        processor.shutdown().await;
        started.elapsed().as_secs_f64()
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("pipeline: a benchmark; run it with `cargo bench --bench pipeline`");
        return;
    }
    let numbers: Vec<usize> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    let events = numbers.first().copied().unwrap_or(200_000);
    let listeners = numbers.get(1).copied().unwrap_or(4);
    let rounds = 15;
    let (mut with, mut without) = (Vec::new(), Vec::new());
    // Alternate the two, so that drift in the machine's speed hits both alike.
    for _ in 0..rounds {
        without.push(run(deltas(events), listeners, false).await);
        with.push(run(deltas(events), listeners, true).await);
    }
    let (w, wo) = (median(with), median(without));
    println!("{events} deltas, {listeners} listeners, median of {rounds} rounds");
    println!("| listeners instrumented | s | deltas/s | ns per delta per listener |");
    println!("|---|---|---|---|");
    for (label, s) in [("no", wo), ("yes", w)] {
        println!(
            "| {label} | {s:.3} | {:.0} | {:.0} |",
            events as f64 / s,
            s * 1e9 / (events * listeners) as f64
        );
    }
    println!(
        "instrumentation cost: {:+.1}% of throughput (1 - instrumented/uninstrumented deltas per s)",
        (1.0 - wo / w) * 100.0
    );
    let (mut sat_with, mut sat_without) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        // On a thread of its own: a runtime cannot be started inside this one.
        for (instrumented, out) in [(false, &mut sat_without), (true, &mut sat_with)] {
            let items = deltas(events);
            out.push(
                std::thread::spawn(move || saturated_drain(items, listeners, instrumented))
                    .join()
                    .unwrap(),
            );
        }
    }
    let (sw, swo) = (median(sat_with), median(sat_without));
    println!("saturated listeners (current-thread runtime, buffers full before draining):");
    println!("| listeners instrumented | drain s | ns per notification |");
    println!("|---|---|---|");
    for (label, s) in [("no", swo), ("yes", sw)] {
        println!(
            "| {label} | {s:.3} | {:.0} |",
            s * 1e9 / (events * listeners) as f64
        );
    }
    println!(
        "instrumentation cost, saturated: {:+.1}% of throughput",
        (1.0 - swo / sw) * 100.0
    );
    let clock = |tokio_clock: bool| {
        let n = 2_000_000u32;
        let started = Instant::now();
        for _ in 0..n {
            if tokio_clock {
                std::hint::black_box(tokio::time::Instant::now());
            } else {
                std::hint::black_box(Instant::now());
            }
        }
        started.elapsed().as_nanos() as f64 / f64::from(n)
    };
    println!(
        "one clock read: std {:.1} ns, tokio {:.1} ns",
        median((0..rounds).map(|_| clock(false)).collect()),
        median((0..rounds).map(|_| clock(true)).collect())
    );
    let per = median((0..rounds).map(|_| instrumentation_ns(2_000_000)).collect());
    let notification = wo * 1e9 / (events * listeners) as f64;
    println!(
        "instrumentation in isolation: {per:.1} ns per notification, {:.1}% of the {notification:.0} ns an uninstrumented notification costs",
        per / notification * 100.0
    );
}
