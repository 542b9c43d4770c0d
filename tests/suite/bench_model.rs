//! `bench` on the offline source with a simulated clock (tokio's paused time): known arrivals and
//! known handler and work times give known figures, exactly.

use kubectl_informer::bench::dist::{Dist, Timer};
use kubectl_informer::bench::gate::{compare_with_baseline, Gate};
use kubectl_informer::bench::pipeline::ControllerShape;
use kubectl_informer::bench::replay::Speed;
use kubectl_informer::bench::report::{BenchReport, Settings, Source};
use kubectl_informer::bench::run::{run_replay, Finished, RunOptions};
use kubectl_informer::commands::bench::from_file::read_replay;
use std::time::Duration;

/// A recording of `n` events, `spacing_ms` apart; `keys` distinct objects updated in turn.
fn recording(n: usize, spacing_ms: u64, keys: usize) -> String {
    let mut text = String::from(
        "{\"type\":\"NOTICE\",\"notice\":\"start\",\"resource\":\"configmaps\",\"time\":\"2026-01-01T00:00:00.000Z\"}\n",
    );
    for i in 0..n {
        let ms = spacing_ms * i as u64;
        let time = format!(
            "2026-01-01T00:{:02}:{:02}.{:03}Z",
            ms / 60_000,
            (ms / 1000) % 60,
            ms % 1000
        );
        let name = format!("cm-{}", i % keys);
        let kind = if i < keys { "ADDED" } else { "MODIFIED" };
        text.push_str(&format!(
            "{{\"type\":\"{kind}\",\"resourceVersion\":\"{rv}\",\"namespace\":\"ns\",\"name\":\"{name}\",\"time\":\"{time}\",\"object\":{{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"ns\",\"resourceVersion\":\"{rv}\"}}}}}}\n",
            rv = 100 + i
        ));
    }
    text
}

fn shape(handler: &str, work: &str) -> ControllerShape {
    ControllerShape {
        handlers: 1,
        handler_time: Dist::parse(handler).unwrap(),
        workers: 1,
        work_time: Dist::parse(work).unwrap(),
        error_rate: 0.0,
        resync: None,
        seed: 1,
        timer: Timer::Tokio,
    }
}

async fn replay(text: &str, shape: ControllerShape, warmup: Duration) -> Finished {
    let replay = read_replay(text.as_bytes()).unwrap();
    let options = RunOptions { shape, warmup };
    run_replay(
        replay,
        Speed::Factor(1.0),
        (&options, &Default::default()),
        &mut |_| {},
    )
    .await
    .unwrap()
}

/// The run's report document, as `--export-json` writes it.
fn report(f: &Finished) -> serde_json::Value {
    typed_report(f).to_value()
}

/// The run's report, which gates judge.
fn typed_report(f: &Finished) -> BenchReport {
    BenchReport::new(
        Source::File {
            path: "test".into(),
            speed: "1x".into(),
        },
        Settings {
            handlers: 1,
            handler_time: String::new(),
            workers: 1,
            work_time: String::new(),
            error_rate: 0.0,
            resync: None,
            warmup: "0s".into(),
            duration: None,
            objects: None,
            rate: None,
            speed: Some("1x".into()),
            seed: 1,
            react: None,
            reaction_timeout: None,
        },
        &f.measured,
        &f.window,
        f.drain.as_secs_f64(),
    )
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= expected * 0.002 + 2e-6
}

#[tokio::test(start_paused = true)]
async fn known_handler_and_work_times_give_known_queue_durations() {
    // Events every 100 ms; the handler takes 10 ms; the worker 150 ms per item, so item k
    // (added at 100k + 10 ms) waits for the k items before it: 50k ms.
    let f = replay(
        &recording(10, 100, 10),
        shape("10ms", "150ms"),
        Duration::ZERO,
    )
    .await;
    let r = report(&f);
    let m = &r["metrics"];
    assert_eq!(m["handlerTime"]["count"], 10);
    assert!(
        close(m["handlerTime"]["p50"].as_f64().unwrap(), 0.010),
        "{m}"
    );
    assert!(m["deliveryLag"]["max"].as_f64().unwrap() < 0.001, "{m}");
    let q = &m["queueDuration"];
    assert_eq!(q["count"], 10);
    assert!(close(q["max"].as_f64().unwrap(), 0.450), "{q}");
    assert!(close(q["mean"].as_f64().unwrap(), 0.225), "{q}");
    assert!(
        close(m["workDuration"]["p99"].as_f64().unwrap(), 0.150),
        "{m}"
    );
    assert_eq!(r["counters"]["events"], 10);
    assert_eq!(r["counters"]["adds"], 10);
    assert_eq!(r["counters"]["deduplicated"], 0);
    assert!(m["depth"]["max"].as_u64().unwrap() >= 3, "{m}");
}

#[tokio::test(start_paused = true)]
async fn backlog_grows_while_handlers_are_slower_than_arrivals_and_drains_after() {
    // 50 events 10 ms apart, a 20 ms handler: half of them are still waiting when the source
    // ends, and the last waits about 490 ms for its handler.
    let f = replay(&recording(50, 10, 50), shape("20ms", "0"), Duration::ZERO).await;
    let r = report(&f);
    let backlog = &r["metrics"]["backlog"];
    let at_end = backlog["last"].as_u64().unwrap();
    assert!((23..=26).contains(&at_end), "{backlog}");
    assert!(backlog["max"].as_u64().unwrap() >= at_end, "{backlog}");
    assert!(backlog["mean"].as_f64().unwrap() > 5.0, "{backlog}");
    let lag = r["metrics"]["deliveryLag"]["max"].as_f64().unwrap();
    assert!((0.480..=0.500).contains(&lag), "{lag}");
    // Drained after: every notification handled, nothing pending.
    assert_eq!(r["listeners"][0]["handled"], 50);
    assert_eq!(f.measured.snapshot.listeners[0].backlog, 0);
    assert!(
        (0.45..0.55).contains(&f.drain.as_secs_f64()),
        "{:?}",
        f.drain
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_worker_deduplicates_adds_of_a_key_already_waiting() {
    // One key updated every 10 ms; the worker takes 100 ms: adds while the key waits are
    // deduplicated.
    let f = replay(&recording(40, 10, 1), shape("0", "100ms"), Duration::ZERO).await;
    let r = report(&f);
    let (adds, dedup) = (
        r["counters"]["adds"].as_u64().unwrap(),
        r["counters"]["deduplicated"].as_u64().unwrap(),
    );
    assert!(dedup > 25, "adds {adds}, deduplicated {dedup}");
    assert!(adds < 15, "adds {adds}, deduplicated {dedup}");
}

#[tokio::test(start_paused = true)]
async fn failed_work_is_retried_rate_limited() {
    let mut s = shape("0", "1ms");
    s.error_rate = 0.5;
    let f = replay(&recording(40, 10, 40), s, Duration::ZERO).await;
    let r = report(&f);
    let retries = r["counters"]["retries"].as_u64().unwrap();
    // The seed and the paused clock fix which tries fail: each failure is retried, and a retry
    // can fail again, until none does. With seed 1, 31 of the 71 tries failed.
    assert_eq!(retries, 31, "{}", r["counters"]);
    // Every retry is an add of its own (a key whose retry waits is not deduplicated away).
    assert_eq!(r["counters"]["adds"], 40 + retries, "{}", r["counters"]);
}

#[tokio::test(start_paused = true)]
async fn the_warmup_is_left_out_of_the_figures() {
    // 20 events 100 ms apart, the first second is warm-up: about 10 events are measured.
    let f = replay(
        &recording(20, 100, 20),
        shape("1ms", "0"),
        Duration::from_millis(950),
    )
    .await;
    let r = report(&f);
    assert_eq!(r["counters"]["events"], 10, "{}", r["counters"]);
    assert_eq!(r["metrics"]["handlerTime"]["count"], 10);
    assert!(close(f.window.seconds, 0.950), "{}", f.window.seconds);
}

#[tokio::test(start_paused = true)]
async fn events_still_waiting_for_the_handler_when_the_warmup_ends_are_left_out() {
    // 20 events 100 ms apart, a 250 ms handler: when the window opens at 950 ms, most of the
    // warm-up's 10 are still waiting. They are handled in the window, but the figures count
    // the 10 events that arrived in it, and only those.
    let f = replay(
        &recording(20, 100, 20),
        shape("250ms", "0"),
        Duration::from_millis(950),
    )
    .await;
    let r = report(&f);
    assert_eq!(r["counters"]["events"], 10, "{}", r["counters"]);
    assert_eq!(r["counters"]["adds"], 10, "{}", r["counters"]);
    assert_eq!(r["metrics"]["handlerTime"]["count"], 10);
    assert_eq!(r["metrics"]["deliveryLag"]["count"], 10);
    assert_eq!(r["listeners"][0]["handled"], 10);
    // The warm-up's events waited for the handler into the window: the backlog was sampled.
    assert!(
        r["metrics"]["backlog"]["max"].as_u64().unwrap() >= 5,
        "{}",
        r["metrics"]
    );
}

#[tokio::test(start_paused = true)]
async fn a_recording_shorter_than_the_warmup_is_an_error() {
    let replay = read_replay(recording(5, 100, 5).as_bytes()).unwrap();
    let options = RunOptions {
        shape: shape("0", "0"),
        warmup: Duration::from_secs(10),
    };
    let err = run_replay(
        replay,
        Speed::Factor(1.0),
        (&options, &Default::default()),
        &mut |_| {},
    )
    .await
    .err()
    .expect("an error");
    assert!(
        err.to_string()
            .contains("the source ended after 400ms, before the warm-up of 10s was over"),
        "{err}"
    );
}

#[tokio::test(start_paused = true)]
async fn gates_pass_and_fail_on_the_right_side_of_a_measured_threshold() {
    let f = replay(
        &recording(10, 100, 10),
        shape("10ms", "150ms"),
        Duration::ZERO,
    )
    .await;
    let r = typed_report(&f);
    let max = r.metrics.queue_duration.max.unwrap();
    let below = format!("queueDuration.max > {}ms", (max * 1000.0).floor() - 1.0);
    let above = format!("queueDuration.max > {}ms", (max * 1000.0).ceil() + 1.0);
    assert!(Gate::parse(&below).unwrap().evaluate(&r).failed);
    assert!(!Gate::parse(&above).unwrap().evaluate(&r).failed);
    // The handler kept up (no backlog) while up to 4 keys waited for the slow worker.
    assert!(!Gate::parse("backlog.max > 0").unwrap().evaluate(&r).failed);
    assert!(Gate::parse("depth.max >= 3").unwrap().evaluate(&r).failed);
    assert!(!Gate::parse("events < 10").unwrap().evaluate(&r).failed);
    assert!(Gate::parse("events < 11").unwrap().evaluate(&r).failed);
}

#[tokio::test(start_paused = true)]
async fn the_baseline_flags_a_slower_worker_and_accepts_a_rerun() {
    let text = recording(10, 100, 10);
    let base = report(&replay(&text, shape("10ms", "150ms"), Duration::ZERO).await);
    let same = report(&replay(&text, shape("10ms", "150ms"), Duration::ZERO).await);
    let near = report(&replay(&text, shape("10ms", "152ms"), Duration::ZERO).await);
    let slower = report(&replay(&text, shape("10ms", "200ms"), Duration::ZERO).await);
    assert!(compare_with_baseline(&same, &base, 10.0)
        .iter()
        .all(|c| !c.regressed && c.change_percent.abs() < 0.5));
    assert!(
        compare_with_baseline(&near, &base, 10.0)
            .iter()
            .all(|c| !c.regressed),
        "a few percent is within 10%"
    );
    let worse = compare_with_baseline(&slower, &base, 10.0);
    let regressed: Vec<String> = worse
        .iter()
        .filter(|c| c.regressed)
        .map(|c| format!("{}.{}", c.metric, c.stat))
        .collect();
    assert!(
        regressed.contains(&"queueDuration.p99".to_string()),
        "{regressed:?}"
    );
    assert!(regressed.contains(&"workDuration.p50".to_string()));
    assert!(!regressed.iter().any(|r| r.starts_with("handlerTime")));
}

#[tokio::test(start_paused = true)]
async fn resync_redelivers_the_cache_to_the_handlers() {
    // 5 objects updated in turn every 100 ms for 3.4 s; a 1 s resync re-delivers all 5 at 1, 2
    // and 3 s: 15 more notifications than events.
    let mut s = shape("0", "0");
    s.resync = Some(Duration::from_secs(1));
    let f = replay(&recording(35, 100, 5), s, Duration::ZERO).await;
    let r = report(&f);
    let events = r["counters"]["events"].as_u64().unwrap();
    let handled = r["listeners"][0]["handled"].as_u64().unwrap();
    assert_eq!(handled, events + 15, "events {events}, handled {handled}");
}

#[tokio::test(start_paused = true)]
async fn the_same_seed_repeats_a_run_and_another_seed_does_not() {
    let text = recording(30, 50, 30);
    let run = |seed| {
        let mut s = shape("exp:20ms", "uniform:1ms..9ms");
        s.seed = seed;
        let text = text.clone();
        async move { report(&replay(&text, s, Duration::ZERO).await)["metrics"].clone() }
    };
    let (a, b, c) = (run(7).await, run(7).await, run(8).await);
    assert_eq!(a["handlerTime"], b["handlerTime"]);
    assert_eq!(a["workDuration"], b["workDuration"]);
    assert_ne!(a["handlerTime"], c["handlerTime"]);
}

#[tokio::test(start_paused = true)]
async fn a_latency_with_no_samples_has_no_figures_and_fails_its_gates() {
    use kubectl_informer::bench::report::LatencyFigures;
    use kubectl_informer::metrics::Latency;
    let empty = LatencyFigures::of(&Latency::default());
    assert_eq!(empty.count, 0);
    assert!(empty.p99.is_none() && empty.mean.is_none() && empty.max.is_none());
    let doc = serde_json::json!({"metrics": {"queueDuration": empty}});
    assert!(doc["metrics"]["queueDuration"]["p99"].is_null());
    let f = replay(&recording(10, 100, 10), shape("0", "0"), Duration::ZERO).await;
    let mut r = typed_report(&f);
    r.metrics.queue_duration = empty;
    let gate = |expr: &str| Gate::parse(expr).unwrap().evaluate(&r);
    assert!(
        gate("queueDuration.p99 > 50ms").failed,
        "a zero would have passed"
    );
    assert!(!gate("queueDuration.count > 0").failed);
}
