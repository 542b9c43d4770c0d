//! A scripted [`ListerWatcher`], as client-go tests its reflector with a fake one: each call is
//! answered by the next reply of a script, every request is recorded, and once the script has run
//! out a call never returns, so a test pulls exactly the events it expects.

use crate::cluster::ClusterError;
use crate::informer::listwatch::{
    ListOptions, ListPage, ListerWatcher, StreamError, WatchEvent, WatchOptions, WatchStream,
};
use crate::informer::object::RawObject;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One step of a scripted watch response.
#[derive(Debug, Clone)]
pub enum Step {
    /// The server sends this event.
    Event(WatchEvent),
    /// Nothing for this long, on tokio's clock.
    Wait(Duration),
    /// The connection fails mid-stream.
    Cut,
    /// The server sends a line that cannot be decoded.
    Garbage,
    /// The server sends a line over the size limit.
    TooLarge,
    /// The server ends the response cleanly.
    End,
    /// Nothing, ever: a peer gone without closing the connection. A watch whose steps run out
    /// does the same.
    Hang,
}

/// A request the reflector made, with the options a test asserts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    List {
        limit: Option<u32>,
        continue_token: Option<String>,
        resource_version: Option<String>,
    },
    Watch {
        resource_version: String,
        timeout_seconds: Option<u64>,
        send_initial_events: bool,
        bookmarks: bool,
    },
}

enum Reply {
    List(Result<ListPage, ClusterError>),
    Watch(Result<Vec<Step>, ClusterError>),
}

/// The script: replies in the order the reflector is expected to ask for them. Clones share
/// the script and the record, so a test keeps one to read the requests.
#[derive(Clone, Default)]
pub struct Script {
    replies: Arc<Mutex<VecDeque<Reply>>>,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Script {
    /// A LIST page with `items` at `rv`, followed by more when `next` is a continue token.
    pub fn list(self, items: Vec<RawObject>, rv: &str, next: Option<&str>) -> Self {
        self.reply(Reply::List(Ok(ListPage {
            items,
            resource_version: rv.to_string(),
            continue_token: next.map(str::to_string),
            remaining_item_count: None,
        })))
    }

    pub fn list_fails(self, error: ClusterError) -> Self {
        self.reply(Reply::List(Err(error)))
    }

    /// A WATCH that opens and plays `steps`.
    pub fn watch(self, steps: Vec<Step>) -> Self {
        self.reply(Reply::Watch(Ok(steps)))
    }

    pub fn watch_fails(self, error: ClusterError) -> Self {
        self.reply(Reply::Watch(Err(error)))
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    fn reply(self, reply: Reply) -> Self {
        self.replies.lock().unwrap().push_back(reply);
        self
    }

    fn answer(&self, request: Request) -> Option<Reply> {
        self.requests.lock().unwrap().push(request);
        self.replies.lock().unwrap().pop_front()
    }
}

impl ListerWatcher for Script {
    async fn list_page(&self, opts: &ListOptions) -> Result<ListPage, ClusterError> {
        let request = Request::List {
            limit: opts.limit,
            continue_token: opts.continue_token.clone(),
            resource_version: opts.at.resource_version().map(str::to_string),
        };
        match self.answer(request) {
            Some(Reply::List(reply)) => reply,
            Some(Reply::Watch(_)) => panic!("a LIST {opts:?} where the script has a WATCH"),
            None => std::future::pending().await,
        }
    }

    async fn watch(&self, opts: &WatchOptions) -> Result<WatchStream, ClusterError> {
        let request = Request::Watch {
            resource_version: opts.resource_version.clone(),
            timeout_seconds: opts.timeout_seconds,
            send_initial_events: opts.send_initial_events,
            bookmarks: opts.bookmarks,
        };
        match self.answer(request) {
            Some(Reply::Watch(reply)) => reply.map(play),
            Some(Reply::List(_)) => panic!("a WATCH {opts:?} where the script has a LIST"),
            None => std::future::pending().await,
        }
    }

    fn resource_name(&self) -> String {
        "configmaps".to_string()
    }
}

/// The watch stream that plays `steps`; after a failure it ends.
fn play(steps: Vec<Step>) -> WatchStream {
    let steps = VecDeque::from(steps);
    WatchStream::from_events(futures::stream::unfold(steps, |mut steps| async move {
        loop {
            let failure = match steps.pop_front() {
                Some(Step::Event(event)) => return Some((Ok(event), steps)),
                Some(Step::Wait(d)) => {
                    tokio::time::sleep(d).await;
                    continue;
                }
                Some(Step::Cut) => StreamError::Io("connection reset by peer".to_string()),
                Some(Step::Garbage) => StreamError::Malformed {
                    reason: "expected value at line 1 column 1".to_string(),
                    snippet: "garbage".to_string(),
                },
                Some(Step::TooLarge) => StreamError::TooLarge {
                    limit: super::listwatch::MAX_EVENT_BYTES,
                },
                Some(Step::End) => return None,
                Some(Step::Hang) | None => std::future::pending().await,
            };
            return Some((Err(failure), VecDeque::from([Step::End])));
        }
    }))
}
