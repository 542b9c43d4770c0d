//! A template run on one object as client-go's `util/jsonpath/jsonpath.go` runs it: each step
//! on every value the steps before it found; a field that no value has is an error unless
//! missing keys are allowed; indexes out of bounds, a filter on what is not an array, and
//! comparisons of different types are errors whatever is allowed. Maps are walked in the
//! object's own order (client-go's order is Go's random map order).

use super::go;
use super::parser::{Bound, Filter, Op, Segment, Step};
use serde_json::Value;
use std::borrow::Cow;

/// The values a step found: the object's own, or made by the template (a quoted string, a
/// number, a string's bytes).
type Found<'a> = Vec<Cow<'a, Value>>;

/// Each action's values, in the order the template prints them (a `range` body's once per
/// value it ranges over).
pub(super) fn run(
    segments: &[Segment],
    data: &Value,
    allow_missing: bool,
    out: &mut Vec<Vec<Value>>,
) -> Result<(), String> {
    for segment in segments {
        match segment {
            Segment::Text(t) => out.push(vec![Value::String(t.clone())]),
            Segment::Action(steps) => {
                let found = walk(steps, vec![Cow::Borrowed(data)], allow_missing)?;
                out.push(found.into_iter().map(Cow::into_owned).collect());
            }
            Segment::Range { over, body, closed } => {
                let items = walk(over, vec![Cow::Borrowed(data)], allow_missing)?;
                if items.is_empty() {
                    // client-go still runs the body (on nothing), so its errors are errors.
                    run(body, &Value::Null, allow_missing, &mut Vec::new())?;
                }
                for item in &items {
                    run(body, item, allow_missing, out)?;
                }
                if !closed {
                    run(body, data, allow_missing, out)?;
                }
            }
        }
    }
    Ok(())
}

/// `steps` applied one after the other, from `input`.
fn walk<'a>(steps: &[Step], input: Found<'a>, allow_missing: bool) -> Result<Found<'a>, String> {
    steps
        .iter()
        .try_fold(input, |found, s| step(s, found, allow_missing))
}

fn step<'a>(step: &Step, input: Found<'a>, allow_missing: bool) -> Result<Found<'a>, String> {
    Ok(match step {
        Step::Field(name) => return field(name, &input, allow_missing),
        Step::Wildcard => input.iter().flat_map(children).collect(),
        Step::Recursive => {
            let mut out = Vec::new();
            recursive(&input, &mut out);
            out
        }
        Step::Slice(bounds) => return slice(&input, bounds),
        Step::Filter(f) => return filter(&input, f, allow_missing),
        Step::Union(members) => {
            let mut out = Vec::new();
            for member in members {
                out.extend(walk(member, input.clone(), allow_missing)?);
            }
            out
        }
        Step::Text(t) => vec![Cow::Owned(Value::String(t.clone()))],
        Step::Literal(v) => input.iter().map(|_| Cow::Owned(v.clone())).collect(),
    })
}

/// `v`'s own value at `pick`, borrowed as `v` is.
fn pick<'a>(v: &Cow<'a, Value>, pick: impl Fn(&Value) -> Option<&Value>) -> Option<Cow<'a, Value>> {
    match v {
        Cow::Borrowed(b) => pick(b).map(Cow::Borrowed),
        Cow::Owned(o) => pick(o).cloned().map(Cow::Owned),
    }
}

/// A map's values, an array's elements, a string's bytes (as client-go's reflection sees a
/// string); nothing for the rest.
fn children<'a>(v: &Cow<'a, Value>) -> Found<'a> {
    fn below(v: &Value) -> Vec<&Value> {
        match v {
            Value::Object(m) => m.values().collect(),
            Value::Array(a) => a.iter().collect(),
            _ => Vec::new(),
        }
    }
    match v {
        Cow::Borrowed(Value::String(s)) | Cow::Owned(Value::String(s)) => {
            s.bytes().map(|b| Cow::Owned(Value::from(b))).collect()
        }
        Cow::Borrowed(b) => below(b).into_iter().map(Cow::Borrowed).collect(),
        Cow::Owned(o) => below(o).into_iter().cloned().map(Cow::Owned).collect(),
    }
}

fn field<'a>(name: &str, input: &Found<'a>, allow_missing: bool) -> Result<Found<'a>, String> {
    if input.is_empty() {
        return Ok(Vec::new());
    }
    let found: Found<'a> = input
        .iter()
        .filter_map(|v| pick(v, |x| x.as_object().and_then(|m| m.get(name))))
        .collect();
    if found.is_empty() && !allow_missing {
        return Err(format!("{name} is not found"));
    }
    Ok(found)
}

/// Every value below `input` that has something below it, itself first.
fn recursive<'a>(input: &Found<'a>, out: &mut Found<'a>) {
    for v in input {
        let below = children(v);
        if !below.is_empty() {
            out.push(v.clone());
            recursive(&below, out);
        }
    }
}

fn slice<'a>(input: &Found<'a>, bounds: &[Bound; 3]) -> Result<Found<'a>, String> {
    let mut out = Vec::new();
    for v in input {
        let len = match v.as_ref() {
            Value::Null => continue,
            Value::Array(a) => a.len() as i64,
            other => return Err(format!("{} is not array or slice", go::type_name(other))),
        };
        let [mut start, mut end, step] = *bounds;
        if !start.known {
            start.value = 0;
        }
        if start.value < 0 {
            start.value += len;
        }
        if !end.known {
            end.value = len;
        }
        if end.value < 0 || (end.value == 0 && end.derived) {
            end.value += len;
        }
        // client-go's answer to an empty slice: what was found so far, whatever follows.
        if end.value == start.value {
            return Ok(out);
        }
        let (start, end) = (start.value, end.value);
        if start >= len || start < 0 {
            return Err(format!(
                "array index out of bounds: index {start}, length {len}"
            ));
        }
        if end > len || end < 0 {
            return Err(format!(
                "array index out of bounds: index {}, length {len}",
                end - 1
            ));
        }
        if start > end {
            return Err(format!(
                "starting index {start} is greater than ending index {end}"
            ));
        }
        let by = match step {
            Bound {
                known: true, value, ..
            } if value <= 0 => return Err("step must be > 0".into()),
            Bound {
                known: true, value, ..
            } => value as usize,
            _ => 1,
        };
        for i in (start as usize..end as usize).step_by(by) {
            out.extend(pick(v, |x| x.as_array().and_then(|a| a.get(i))));
        }
    }
    Ok(out)
}

fn filter<'a>(input: &Found<'a>, f: &Filter, allow_missing: bool) -> Result<Found<'a>, String> {
    let mut out = Vec::new();
    for v in input {
        let Some(len) = v.as_array().map(Vec::len) else {
            return Err(format!(
                "{} is not array or slice and cannot be filtered",
                go::sprint(v)
            ));
        };
        for i in 0..len {
            let Some(element) = pick(v, |x| x.as_array().and_then(|a| a.get(i))) else {
                continue;
            };
            let here = vec![element.clone()];
            let lefts = walk(&f.left, here.clone(), allow_missing);
            if f.op == Op::Exists {
                if lefts.is_ok_and(|l| !l.is_empty()) {
                    out.push(element);
                }
                continue;
            }
            let Some(left) = one(lefts?)? else {
                continue;
            };
            let Some(right) = one(walk(&f.right, here, allow_missing)?)? else {
                continue;
            };
            if compare(f.op, &left, &right)? {
                out.push(element);
            }
        }
    }
    Ok(out)
}

/// The one value a filter's side found, none, or client-go's refusal of several.
fn one(found: Found<'_>) -> Result<Option<Value>, String> {
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.into_iter().next().map(Cow::into_owned)),
        _ => Err("can only compare one element at a time".into()),
    }
}

/// What Go's templates compare: booleans, integers, floats, strings, each only with its own.
#[derive(PartialEq)]
enum Basic<'v> {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'v str),
}

fn basic(v: &Value) -> Result<Basic<'_>, String> {
    Ok(match v {
        Value::Bool(b) => Basic::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Basic::Int(i),
            None => Basic::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Basic::Str(s),
        _ => return Err("invalid type for comparison".into()),
    })
}

const INCOMPATIBLE: &str = "incompatible types for comparison";

fn equal(a: &Value, b: &Value) -> Result<bool, String> {
    let (a, b) = (basic(a)?, basic(b)?);
    if std::mem::discriminant(&a) != std::mem::discriminant(&b) {
        return Err(INCOMPATIBLE.into());
    }
    Ok(a == b)
}

fn less(a: &Value, b: &Value) -> Result<bool, String> {
    Ok(match (basic(a)?, basic(b)?) {
        (Basic::Int(x), Basic::Int(y)) => x < y,
        (Basic::Float(x), Basic::Float(y)) => x < y,
        (Basic::Str(x), Basic::Str(y)) => x < y,
        (Basic::Bool(_), Basic::Bool(_)) => return Err("invalid type for comparison".into()),
        _ => return Err(INCOMPATIBLE.into()),
    })
}

/// Go's `template` comparisons, built as Go builds them (`<=` is `<` or `==`, `>` is not `<=`).
fn compare(op: Op, a: &Value, b: &Value) -> Result<bool, String> {
    let less_equal = |a, b| -> Result<bool, String> { Ok(less(a, b)? || equal(a, b)?) };
    match op {
        Op::Lt => less(a, b),
        Op::Gt => less_equal(a, b).map(|le| !le),
        Op::Eq => equal(a, b),
        Op::Ne => equal(a, b).map(|eq| !eq),
        Op::Le => less_equal(a, b),
        Op::Ge => less(a, b).map(|lt| !lt),
        Op::Exists => Ok(true),
    }
}
