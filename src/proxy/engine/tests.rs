use super::*;
use crate::proxy::fault::Fault;

fn engine(faults: &[&str], seed: u64) -> Arc<Engine> {
    let armed = faults
        .iter()
        .map(|f| Armed {
            fault: Fault::parse(f).unwrap(),
            scope: None,
        })
        .collect();
    Arc::new(Engine::new(armed, seed, mpsc::unbounded_channel().0))
}

fn get(query: &str) -> ApiRequest {
    ApiRequest::new(&http::Method::GET, "/api/v1/configmaps", Some(query))
}

#[test]
fn gone_answers_only_the_resume_of_a_watch_that_ended_and_only_once() {
    let engine = engine(&["gone"], 1);
    let resume = get("watch=1&resourceVersion=9");
    assert_eq!(engine.plan(&resume).gone, None, "no watch ended yet");
    let connection = engine.connection("127.0.0.1:1".parse().unwrap());
    let first = engine.watch_opened(&get("watch=1&resourceVersion=5"), &connection);
    assert_eq!(engine.plan(&resume).gone, None, "still open");
    drop(first);
    assert_eq!(
        engine
            .plan(&get("watch=1&sendInitialEvents=true&resourceVersion=9"))
            .gone,
        None,
        "a watch-list is not a resume"
    );
    assert_eq!(engine.plan(&resume).gone, Some(0));
    assert_eq!(
        engine.plan(&resume).gone,
        None,
        "after the 410, the relist's watch goes on"
    );
}

#[test]
fn a_share_is_drawn_with_the_seed_and_comes_out_near_its_rate() {
    let draws = |seed| {
        let engine = engine(&["error:status=429,share=20%"], seed);
        (0..1000)
            .map(|_| engine.plan(&get("limit=500")).error.is_some())
            .collect::<Vec<bool>>()
    };
    let once = draws(7);
    assert_eq!(once, draws(7), "the same seed, the same draws");
    assert_ne!(once, draws(8));
    let hits = once.iter().filter(|h| **h).count();
    assert!((150..250).contains(&hits), "{hits} of 1000 at 20%");
    let engine = engine(&["error:status=500,verb=create"], 1);
    assert_eq!(
        engine.plan(&get("limit=500")).error,
        None,
        "lists are not in its verbs"
    );
}
