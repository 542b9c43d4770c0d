//! Checks 1 to 3: the LIST side of the contract (consistency, pagination, exact RV).

use super::*;

/// 1. A LIST at RV "" is not older than a write made just before it.
pub(super) async fn list_consistent(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let writer = writer(subject)?;
    let name = writer.object(0);
    let written = writer.touch(ev, &name).await?;
    let page = ev.list(&subject.lw, &ListOptions::default()).await?;
    let (w, l) = (rv_number(&written)?, rv_number(&page.resource_version)?);
    if l < w {
        return Ok(Verdict::Fail(format!(
            "a LIST at RV \"\" answered RV {l}, older than the write made just before it (RV \
             {w}): the LIST was served stale, and an informer started from it misses that write \
             until it relists"
        )));
    }
    match rv_in(&page, &name) {
        Some(seen) if rv_number(&seen)? >= w => Ok(Verdict::Pass(format!(
            "a LIST at RV \"\" answered RV {l}, not older than the write made just before it \
             (RV {w}), and shows it"
        ))),
        seen => Ok(Verdict::Fail(format!(
            "a LIST at RV \"\" answered RV {l} but shows {name} at {}, not the write made just \
             before it (RV {w})",
            seen.map_or("no RV (not listed)".to_string(), |rv| format!("RV {rv}"))
        ))),
    }
}

/// 2. `limit` is honoured, continue tokens work, and the pages are at the first page's RV.
pub(super) async fn list_pagination(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let mut opts = ListOptions {
        limit: Some(1),
        ..ListOptions::default()
    };
    let first = ev.list(&subject.lw, &opts).await?;
    let at = first.resource_version.clone();
    let mut names: Vec<String> = Vec::new();
    // How many objects each page held: the last may be empty (a server may end a LIST with
    // an empty page, or fill a page with fewer objects than the limit).
    let mut sizes: Vec<usize> = Vec::new();
    let mut page = first;
    let mut pages = 1;
    loop {
        sizes.push(page.items.len());
        if page.items.len() > 1 {
            return Ok(Verdict::Fail(format!(
                "a LIST with limit=1 answered {} objects in one page: the server ignores \
                 limit, so a reflector's LIST of a large collection comes in one response",
                page.items.len()
            )));
        }
        if page.resource_version != at {
            return Ok(Verdict::Fail(format!(
                "page {pages} is at RV {}, the first page at RV {at}: the pages are not one \
                 snapshot, so a paged LIST can show an object twice or miss one",
                page.resource_version
            )));
        }
        for o in &page.items {
            if names.iter().any(|n| n == o.name()) {
                return Ok(Verdict::Fail(format!(
                    "{} came in two pages: the continue token did not go on after it",
                    o.name()
                )));
            }
            names.push(o.name().to_string());
        }
        let Some(token) = page.continue_token.take() else {
            break;
        };
        if pages == MAX_PAGES {
            return Ok(Verdict::Pass(format!(
                "the first {pages} pages of a LIST with limit=1 held {}, all at RV {at}; their \
                 continue tokens worked",
                page_sizes(&sizes)
            )));
        }
        opts.continue_token = Some(token);
        page = ev.list(&subject.lw, &opts).await?;
        pages += 1;
    }
    if names.len() < 2 {
        return Ok(too_few_to_page(subject, names.len()));
    }
    if let Some(writer) = &subject.writer {
        let expected: BTreeSet<&String> = writer.names.iter().collect();
        let got: BTreeSet<&String> = names.iter().collect();
        if expected != got {
            return Ok(Verdict::Fail(format!(
                "the {pages} pages held {got:?}, the namespace holds {expected:?}"
            )));
        }
    }
    Ok(Verdict::Pass(format!(
        "{pages} pages of a LIST with limit=1 held {}, all at RV {at}; the last had no \
         continue token",
        page_sizes(&sizes)
    )))
}

/// SKIP: fewer than 2 objects to page through (none created with --read-only).
fn too_few_to_page(subject: &Subject, found: usize) -> Verdict {
    if subject.writer.is_none() {
        return Verdict::Skip(
            Skip::ReadOnly,
            format!("needs 2 objects to page through, found {found} (--read-only creates none)"),
        );
    }
    Verdict::Skip(
        Skip::Inconclusive,
        format!("needs 2 objects to page through, found {found}"),
    )
}

/// What pages of these sizes held, as they came: `1 object each`, `1 object each but the
/// last, which was empty`, or each: `1, 0, 1 and 1 objects`.
fn page_sizes(sizes: &[usize]) -> String {
    let each = |n: usize| format!("{} each", crate::format::count(n as u64, "object"));
    match sizes {
        [first, ..] if sizes.iter().all(|n| n == first) => each(*first),
        [rest @ .., 0] if rest.len() > 1 && rest.iter().all(|n| *n == rest[0] && *n > 0) => {
            format!("{} but the last, which was empty", each(rest[0]))
        }
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(usize::to_string).collect();
            format!("{} and {last} objects", rest.join(", "))
        }
        [] => "no objects".to_string(),
    }
}

/// 3. A LIST at an exact RV returns the state at that RV.
pub(super) async fn list_exact_rv(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let before = ev.list_all(&subject.lw, ListOptions::default()).await?;
    let x = before.resource_version.clone();
    let exact = ListOptions {
        at: ListAt::Exact(x.clone()),
        ..ListOptions::default()
    };
    let changed = match subject.writer.as_mut() {
        Some(writer) => {
            let name = writer.object(1);
            let was = rv_in(&before, &name).unwrap_or_default();
            let now = writer.touch(ev, &name).await?;
            Some((name, was, now))
        }
        None => None,
    };
    let at_x = ev.list_all(&subject.lw, exact).await?;
    if at_x.resource_version != x {
        return Ok(Verdict::Fail(format!(
            "a LIST with resourceVersion={x}&resourceVersionMatch=Exact answered RV {}",
            at_x.resource_version
        )));
    }
    let state = |page: &crate::informer::listwatch::ListPage| -> BTreeMap<String, String> {
        page.items
            .iter()
            .map(|o| (o.name().to_string(), o.resource_version().to_string()))
            .collect()
    };
    let (expected, got) = (state(&before), state(&at_x));
    if expected != got {
        let differ: Vec<String> = expected
            .keys()
            .chain(got.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|k| expected.get(*k) != got.get(*k))
            .map(|k| {
                let rv = |m: &BTreeMap<String, String>| {
                    m.get(k)
                        .map_or("absent".to_string(), |rv| format!("RV {rv}"))
                };
                format!(
                    "{k} {} at RV {x}, {} in the exact LIST",
                    rv(&expected),
                    rv(&got)
                )
            })
            .collect();
        return Ok(Verdict::Fail(format!(
            "a LIST at exactly RV {x} is not the state at RV {x}: {}",
            differ.join("; ")
        )));
    }
    Ok(Verdict::Pass(match changed {
        Some((name, was, now)) => format!(
            "a LIST at exactly RV {x} made after {name} changed (RV {now}) shows it as it was \
             (RV {was}), and the other {} as they were",
            crate::format::count(got.len().saturating_sub(1) as u64, "object")
        ),
        None => format!(
            "a LIST at exactly RV {x} shows the {} the LIST at RV {x} showed",
            crate::format::count(got.len() as u64, "object")
        ),
    }))
}

/// Check 12: across several LISTs (at RV "", and not older than the newest RV seen), with a
/// write before each round, no answer is older than the newest RV an earlier one showed.
pub(super) async fn list_never_back(subject: &mut Subject, ev: &mut Evidence) -> Outcome {
    let mut newest: Option<(ResourceVersion, String)> = None;
    let mut first: Option<ResourceVersion> = None;
    let mut lists = 0;
    for round in 0..NEVER_BACK_ROUNDS {
        if let Some(writer) = subject.writer.as_mut() {
            let name = writer.object(round);
            let written = writer.touch(ev, &name).await?;
            newer(
                &mut newest,
                rv_number(&written)?,
                format!("the write of {name}"),
            );
        }
        let not_older = match &newest {
            Some((rv, _)) => ListAt::NotOlderThan(rv.to_string()),
            None => ListAt::Newest,
        };
        for at in [ListAt::Newest, not_older] {
            let asked = match &at {
                ListAt::NotOlderThan(rv) => format!("not older than RV {rv}"),
                _ => "at RV \"\"".to_string(),
            };
            let opts = ListOptions {
                limit: Some(1),
                at,
                ..ListOptions::default()
            };
            let page = ev.list(&subject.lw, &opts).await?;
            let rv = rv_number(&page.resource_version)?;
            lists += 1;
            first.get_or_insert_with(|| rv.clone());
            if let Some((seen, by)) = newest.as_ref().filter(|(seen, _)| rv < *seen) {
                return Ok(Verdict::Fail(format!(
                    "LIST {lists} ({asked}) answered RV {rv}, older than RV {seen} of {by}: \
                     the server went back in time, as an API server whose watch cache lags \
                     does behind a load balancer; an informer relisting there acts on a state \
                     older than one it already saw"
                )));
            }
            newer(&mut newest, rv, format!("LIST {lists}"));
        }
    }
    let writes = match subject.writer {
        Some(_) => format!(", with a write before each of {NEVER_BACK_ROUNDS} rounds"),
        None => " (--read-only: no writes between them)".to_string(),
    };
    let last = newest.map(|(rv, _)| rv.to_string()).unwrap_or_default();
    let first = first.map(|rv| rv.to_string()).unwrap_or_default();
    Ok(Verdict::Pass(format!(
        "{lists} LISTs (at RV \"\", and not older than the newest RV seen){writes}: none \
         answered older than an earlier one (RV {first} to {last})"
    )))
}

/// Keeps `rv` (seen in `by`) when it is the newest so far.
fn newer(newest: &mut Option<(ResourceVersion, String)>, rv: ResourceVersion, by: String) {
    if newest.as_ref().is_none_or(|(seen, _)| rv >= *seen) {
        *newest = Some((rv, by));
    }
}

#[cfg(test)]
mod tests {
    use super::page_sizes;

    #[test]
    fn pages_are_described_with_the_objects_each_really_held() {
        assert_eq!(page_sizes(&[1, 1, 1]), "1 object each");
        assert_eq!(
            page_sizes(&[1, 1, 1, 0]),
            "1 object each but the last, which was empty"
        );
        assert_eq!(page_sizes(&[1, 0, 1, 1]), "1, 0, 1 and 1 objects");
        assert_eq!(page_sizes(&[1, 0]), "1 and 0 objects");
        assert_eq!(page_sizes(&[0, 0]), "0 objects each");
    }
}
