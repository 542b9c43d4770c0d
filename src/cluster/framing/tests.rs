//! The framer on watch bodies of each encoding, cut into chunks anywhere: the events come whole
//! and as they were sent, an event over the limit is refused holding no more than the limit, a
//! body cut short is told from one that ended between events, and whether an event is there
//! without more bytes.

use super::*;
use crate::cluster::cbor::tests::{hex, ADDED, BOOKMARK, ERROR};
use crate::cluster::protobuf::encode;

/// What a framer cuts from a body, in order: each event's bytes or refusal.
type Cuts = Vec<Result<Vec<u8>, FrameError>>;

/// Feeds `body` to `framer` in the pieces `at` cuts it into (offsets, ascending); returns what
/// it cut and how the body ended.
fn feed(framer: &mut Framer, body: &[u8], at: &[usize]) -> (Cuts, Result<(), FrameError>) {
    let mut bounds = vec![0];
    bounds.extend(at.iter().copied().filter(|&a| a > 0 && a < body.len()));
    bounds.push(body.len());
    let mut out = Vec::new();
    for piece in bounds.windows(2).map(|w| &body[w[0]..w[1]]) {
        framer.cut(piece, |cut| out.push(cut.map(<[u8]>::to_vec)));
    }
    (out, framer.end())
}

fn json_line(name: &str, rv: u32, end: &str) -> Vec<u8> {
    format!(
        r#"{{"type":"ADDED","object":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{name}","resourceVersion":"{rv}"}}}}}}{end}"#
    )
    .into_bytes()
}

fn protobuf_frame(event_type: &str, name: &str, rv: &str) -> Vec<u8> {
    let object = encode::object(name, "ns", "u-1", rv, &[("app", "web")], &[]);
    encode::frame(event_type, &encode::envelope("v1", "ConfigMap", &object))
}

/// A watch body, the framer that cuts it, and the events it must give.
struct Body {
    name: &'static str,
    framer: fn() -> Framer,
    bytes: Vec<u8>,
    events: Vec<Vec<u8>>,
}

/// A body of each encoding: JSON lines (a blank one among them, skipped, and one ended by
/// CRLF), the same lines cut by a relay (the blank one an event), protobuf frames (an empty one
/// among them) and kube-apiserver's own CBOR items.
fn bodies() -> Vec<Body> {
    let lines = vec![
        json_line("a", 7, "\n"),
        b" \t\n".to_vec(),
        json_line("b", 8, "\r\n"),
        json_line("c", 9, "\n"),
    ];
    let frames = vec![
        protobuf_frame("ADDED", "a", "10"),
        protobuf_frame("MODIFIED", "a", "11"),
        vec![0, 0, 0, 0],
        protobuf_frame("DELETED", "a", "12"),
    ];
    let items: Vec<Vec<u8>> = [ADDED, BOOKMARK, ERROR].iter().map(|h| hex(h)).collect();
    let mut read_lines = lines.clone();
    read_lines.remove(1);
    vec![
        Body {
            name: "JSON",
            framer: || Framer::new(Encoding::Json, 1 << 20),
            bytes: lines.concat(),
            events: read_lines,
        },
        Body {
            name: "JSON, relayed",
            framer: || Framer::new(Encoding::Json, 1 << 20).with_blank_lines(),
            bytes: lines.concat(),
            events: lines,
        },
        Body {
            name: "protobuf",
            framer: || Framer::new(Encoding::Protobuf, 1 << 20),
            bytes: frames.concat(),
            events: frames,
        },
        Body {
            name: "CBOR",
            framer: || Framer::new(Encoding::Cbor, 1 << 20),
            bytes: items.concat(),
            events: items,
        },
    ]
}

#[test]
fn events_of_every_encoding_are_cut_whole_however_the_chunks_fall() {
    for case in bodies() {
        let (name, framer, body, events) = (case.name, case.framer, case.bytes, case.events);
        let want: Cuts = events.iter().cloned().map(Ok).collect();
        let byte_by_byte: Vec<usize> = (1..body.len()).collect();
        for at in [vec![], byte_by_byte]
            .into_iter()
            .chain((1..body.len()).map(|split| vec![split]))
        {
            let (got, end) = feed(&mut framer(), &body, &at);
            assert_eq!(got, want, "{name}, cut at {at:?}");
            assert_eq!(end, Ok(()), "{name}, cut at {at:?}");
        }
        // One byte short, the last event is not cut, and the body ended inside it.
        let (got, end) = feed(&mut framer(), &body[..body.len() - 1], &[5]);
        assert_eq!(got, want[..want.len() - 1], "{name}");
        assert_eq!(end, Err(FrameError::Cut), "{name}");
    }
}

#[test]
fn a_relay_s_events_are_every_byte_of_the_body_as_it_came() {
    let Body { framer, bytes, .. } = bodies().remove(1);
    let (got, _) = feed(&mut framer(), &bytes, &[3, 50, 51, 180]);
    let got: Vec<Vec<u8>> = got.into_iter().map(Result::unwrap).collect();
    assert_eq!(got.concat(), bytes);
}

#[test]
fn a_line_over_the_limit_is_refused_as_it_passes_it_and_the_next_one_is_cut() {
    let (fits, over, next) = (json_line("a", 1, "\n"), json_line("bb", 2, "\n"), b"{}\n");
    let limit = fits.len() - 1;
    let body = [&fits[..], &over, next].concat();
    for at in [vec![], (1..body.len()).collect(), vec![fits.len() + 3]] {
        let mut framer = Framer::new(Encoding::Json, limit);
        let (got, end) = feed(&mut framer, &body, &at);
        let want = vec![
            Ok(fits.clone()),
            Err(FrameError::TooLarge),
            Ok(next.to_vec()),
        ];
        assert_eq!((got, end), (want, Ok(())), "cut at {at:?}");
        assert!(framer.capacity() <= limit + 1, "{}", framer.capacity());
    }
    // A refused line the body ends inside is a cut body.
    let mut framer = Framer::new(Encoding::Json, limit);
    let (got, end) = feed(&mut framer, &over[..over.len() - 1], &[]);
    assert_eq!(
        (got, end),
        (vec![Err(FrameError::TooLarge)], Err(FrameError::Cut))
    );
}

#[test]
fn a_frame_over_the_limit_is_refused_by_its_length_and_skipped_unread() {
    let big = protobuf_frame("ADDED", &"x".repeat(300), "10");
    let small = protobuf_frame("ADDED", "small", "11");
    let body = [&big[..], &small].concat();
    for at in [vec![], (1..body.len()).collect(), vec![2, 100]] {
        let mut framer = Framer::new(Encoding::Protobuf, 200);
        let (got, end) = feed(&mut framer, &body, &at);
        let want = vec![Err(FrameError::TooLarge), Ok(small.clone())];
        assert_eq!((got, end), (want, Ok(())), "cut at {at:?}");
        assert!(framer.capacity() <= 200, "{}", framer.capacity());
    }
    let mut framer = Framer::new(Encoding::Protobuf, 200);
    let (_, end) = feed(&mut framer, &big[..100], &[]);
    assert_eq!(end, Err(FrameError::Cut), "ended while skipping");
}

#[test]
fn a_cbor_item_over_the_limit_or_malformed_is_refused_for_the_rest_of_the_body() {
    let added = hex(ADDED);
    let body = [added.clone(), hex(BOOKMARK)].concat();
    for at in [vec![], (1..body.len()).collect()] {
        let mut framer = Framer::new(Encoding::Cbor, added.len() - 1);
        let (got, end) = feed(&mut framer, &body, &at);
        assert_eq!(got, vec![Err(FrameError::TooLarge)], "cut at {at:?}");
        assert_eq!(end, Err(FrameError::TooLarge));
        assert!(framer.capacity() <= added.len(), "{}", framer.capacity());
    }
    // 0xff (a break) cannot begin a data item: the refusal quotes what was held.
    let mut framer = Framer::new(Encoding::Cbor, 1 << 20);
    let (got, end) = feed(&mut framer, &[0xff, 0x00], &[]);
    assert!(
        matches!(&got[..], [Err(FrameError::Malformed(_))]),
        "{got:?}"
    );
    assert!(matches!(end, Err(FrameError::Malformed(_))));
    assert_eq!(framer.held(), [0xff, 0x00]);
    assert_eq!(framer.feed(&added).0, 0, "nothing more is taken");
}

/// Whether a feed of `more` to a framer fed `fed` cuts an event.
fn cuts_one(framer: fn() -> Framer, fed: &[u8], more: &[u8]) -> bool {
    let mut f = framer();
    let _ = feed(&mut f, fed, &[]);
    let mut rest = more;
    while !rest.is_empty() {
        match f.feed(rest) {
            (_, Some(cut)) => return cut.is_ok(),
            (taken, None) => rest = &rest[taken..],
        }
    }
    false
}

#[test]
fn holds_event_says_whether_a_feed_of_what_arrived_cuts_an_event() {
    for case in bodies() {
        let (name, framer, body, events) = (case.name, case.framer, case.bytes, case.events);
        // Where each event ends in the body.
        let mut ends = Vec::new();
        let mut byte_by_byte = framer();
        for at in 0..body.len() {
            if let (_, Some(Ok(_))) = byte_by_byte.feed(&body[at..at + 1]) {
                ends.push(at + 1);
            }
        }
        assert_eq!(ends.len(), events.len(), "{name}");
        for from in 0..body.len() {
            let mut fed = framer();
            let _ = feed(&mut fed, &body[..from], &[]);
            let next_end = ends
                .iter()
                .copied()
                .find(|&e| e > from)
                .unwrap_or(body.len());
            for to in [from, from + 1, next_end - 1, next_end, body.len()] {
                let to = to.clamp(from, body.len());
                assert_eq!(
                    fed.holds_event(&body[from..to]),
                    cuts_one(framer, &body[..from], &body[from..to]),
                    "{name}: {from}..{to}"
                );
            }
        }
    }
}
