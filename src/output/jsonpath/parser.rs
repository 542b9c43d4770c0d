//! kubectl's JSONPath template text read into a typed tree, as client-go's
//! `util/jsonpath/parser.go` reads it: text outside braces, actions inside, and in an action
//! fields (`.a`, `\.`-escaped dots, `*`), `..`, `[...]` (index, slice, `*`, union, `'key'`),
//! `[?(...)]` filters, quoted strings, numbers, `true`/`false`, `range` and `end`. The errors
//! are client-go's words; what client-go finds only when it runs a template (an unknown word,
//! an `end` without `range`, an unknown filter operator) is found here, before any object.

use serde_json::Value;

/// A template: text and actions, `range` ... `end` nested as the template nests them.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Segment {
    /// Text outside braces, printed as is.
    Text(String),
    /// `{...}`: its steps, from the object (or the `range` item) at hand.
    Action(Vec<Step>),
    /// `{range STEPS}BODY{end}`: the body once per value the steps find; `closed` is false
    /// when the template has no `end` for it (client-go then runs the body once more, on the
    /// value the range started from).
    Range {
        over: Vec<Step>,
        body: Vec<Segment>,
        closed: bool,
    },
}

/// One step of an action, applied to every value the steps before it found.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Step {
    /// `.name`: a map's key (backslashes removed).
    Field(String),
    /// `.*`: every value of a map, element of an array (byte of a string).
    Wildcard,
    /// `..`: the value and everything below it.
    Recursive,
    /// `[i]`, `[a:b:c]`, `[*]`: start, end, step.
    Slice([Bound; 3]),
    /// `[?(...)]`: the elements of an array that pass.
    Filter(Box<Filter>),
    /// `[x,y]`: each list of steps, from the same values, one after the other.
    Union(Vec<Vec<Step>>),
    /// A quoted string: itself, once, whatever is at hand.
    Text(String),
    /// A number or `true`/`false`: itself, once per value at hand.
    Literal(Value),
}

/// One bound of a slice, as client-go keeps it: given or not, and for an index (`[i]`) the end
/// derived from it (`i+1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Bound {
    pub value: i64,
    pub known: bool,
    pub derived: bool,
}

/// `[?(LEFT OP RIGHT)]`, or `[?(LEFT)]` (the element has it).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Filter {
    pub left: Vec<Step>,
    pub op: Op,
    pub right: Vec<Step>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Exists,
    Lt,
    Gt,
    Eq,
    Ne,
    Le,
    Ge,
}

/// What an action may hold besides steps: `range` and `end` shape the template.
enum Word {
    Range,
    End,
}

/// One action as read, before `range` and `end` are matched.
enum Read {
    Text(String),
    Action(Vec<Step>, Option<Word>),
}

/// Reads `text` into segments, or client-go's reason (`unclosed action`).
pub(super) fn parse(text: &str) -> Result<Vec<Segment>, String> {
    let mut parser = Parser::new(text);
    let read = parser.template(true)?;
    nest(read)
}

/// `range` ... `end` matched, innermost first; an `end` without `range` is refused.
fn nest(read: Vec<Read>) -> Result<Vec<Segment>, String> {
    // Each open range: its steps and the body read so far; the bottom is the template.
    let mut open: Vec<(Vec<Step>, Vec<Segment>)> = vec![(Vec::new(), Vec::new())];
    for item in read {
        let body = match item {
            Read::Action(steps, Some(Word::Range)) => {
                open.push((steps, Vec::new()));
                continue;
            }
            Read::Action(_, Some(Word::End)) => {
                if open.len() == 1 {
                    return Err("not in range, nothing to end".into());
                }
                close(&mut open, true);
                continue;
            }
            Read::Text(t) => Segment::Text(t),
            Read::Action(steps, None) => Segment::Action(steps),
        };
        if let Some((_, segments)) = open.last_mut() {
            segments.push(body);
        }
    }
    while open.len() > 1 {
        close(&mut open, false);
    }
    Ok(open.pop().map(|o| o.1).unwrap_or_default())
}

/// The innermost open range, closed into its parent's body.
fn close(open: &mut Vec<(Vec<Step>, Vec<Segment>)>, closed: bool) {
    if let Some((over, body)) = open.pop() {
        if let Some(parent) = open.last_mut() {
            parent.1.push(Segment::Range { over, body, closed });
        }
    }
}

struct Parser {
    input: Vec<char>,
    pos: usize,
    start: usize,
    /// Whether the last `next` read a character (client-go's width: 0 at the end).
    width: usize,
}

fn is_terminator(r: Option<char>) -> bool {
    match r {
        None => true,
        Some(c) => matches!(
            c,
            ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'
        ),
    }
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

/// A character as Go's `%#U` prints it: `U+002A '*'`.
fn go_unicode(c: char) -> String {
    let code = format!("U+{:04X}", c as u32);
    if c.is_control() {
        code
    } else {
        format!("{code} '{c}'")
    }
}

impl Parser {
    fn new(text: &str) -> Self {
        Parser {
            input: text.chars().collect(),
            pos: 0,
            start: 0,
            width: 0,
        }
    }

    fn next(&mut self) -> Option<char> {
        match self.input.get(self.pos) {
            Some(&c) => {
                self.width = 1;
                self.pos += 1;
                Some(c)
            }
            None => {
                self.width = 0;
                None
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        let r = self.next();
        self.backup();
        r
    }

    fn backup(&mut self) {
        self.pos -= self.width;
    }

    fn consume(&mut self) -> String {
        let value: String = self.input[self.start..self.pos].iter().collect();
        self.start = self.pos;
        value
    }

    fn at(&self, prefix: &str) -> bool {
        (self.pos..)
            .zip(prefix.chars())
            .all(|(i, c)| self.input.get(i) == Some(&c))
    }

    /// The character two before the position: whether a quote just read was escaped.
    fn escaped(&self) -> bool {
        self.pos >= 2 && self.input[self.pos - 2] == '\\'
    }

    /// Text and actions to the end; `top`: `range` and `end` may appear (not in a filter's
    /// operand or a union's member).
    fn template(&mut self, top: bool) -> Result<Vec<Read>, String> {
        let mut read = Vec::new();
        loop {
            if self.at("{") {
                if self.pos > self.start {
                    read.push(Read::Text(self.consume()));
                }
                self.pos += 1;
                self.consume();
                let (steps, word) = self.action()?;
                if word.is_some() && !top {
                    let name = if matches!(word, Some(Word::Range)) {
                        "range"
                    } else {
                        "end"
                    };
                    return Err(format!("unrecognized identifier {name}"));
                }
                read.push(Read::Action(steps, word));
                continue;
            }
            if self.next().is_none() {
                break;
            }
        }
        if self.pos > self.start {
            read.push(Read::Text(self.consume()));
        }
        Ok(read)
    }

    /// The steps of one action, up to and through its `}`.
    fn action(&mut self) -> Result<(Vec<Step>, Option<Word>), String> {
        let mut steps = Vec::new();
        let mut word = None;
        loop {
            if self.at("}") {
                self.pos += 1;
                self.consume();
                return Ok((steps, word));
            }
            if self.at("[?(") {
                steps.push(self.filter()?);
                continue;
            }
            if self.at("..") {
                if steps.last() == Some(&Step::Recursive) {
                    return Err("invalid multiple recursive descent".into());
                }
                self.pos += 2;
                self.consume();
                steps.push(Step::Recursive);
                if self.peek().is_some_and(is_alphanumeric) {
                    steps.push(self.field());
                }
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err("unclosed action".into()),
                Some(' ' | '@' | '$') => {
                    self.consume();
                }
                Some('[') => steps.extend(self.array()?),
                Some(q @ ('"' | '\'')) => steps.push(self.quote(q)?),
                Some('.') => steps.push(self.field()),
                Some(c) if c == '+' || c == '-' || c.is_ascii_digit() => {
                    self.backup();
                    steps.push(self.number()?);
                }
                Some(c) if is_alphanumeric(c) => {
                    self.backup();
                    match self.identifier()? {
                        Ok(step) => steps.push(step),
                        Err(w) => word = Some(w),
                    }
                }
                Some(c) => {
                    return Err(format!(
                        "unrecognized character in action: {}",
                        go_unicode(c)
                    ))
                }
            }
        }
    }

    /// `true`, `false`, `range` or `end`.
    fn identifier(&mut self) -> Result<Result<Step, Word>, String> {
        loop {
            let r = self.next();
            if is_terminator(r) {
                self.backup();
                break;
            }
        }
        let value = self.consume();
        Ok(match value.as_str() {
            "true" => Ok(Step::Literal(Value::Bool(true))),
            "false" => Ok(Step::Literal(Value::Bool(false))),
            "range" => Err(Word::Range),
            "end" => Err(Word::End),
            _ => return Err(format!("unrecognized identifier {value}")),
        })
    }

    fn number(&mut self) -> Result<Step, String> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        loop {
            match self.next() {
                Some(c) if c == '.' || c.is_ascii_digit() => {}
                _ => {
                    self.backup();
                    break;
                }
            }
        }
        let value = self.consume();
        if let Ok(i) = value.parse::<i64>() {
            return Ok(Step::Literal(Value::from(i)));
        }
        match value
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            Some(f) => Ok(Step::Literal(Value::Number(f))),
            None => Err(format!("cannot parse number {value}")),
        }
    }

    /// A field's name, from the position to the next terminator not escaped by a backslash.
    fn field(&mut self) -> Step {
        self.consume();
        loop {
            match self.next() {
                Some('\\') => {
                    self.next();
                }
                r if is_terminator(r) => {
                    self.backup();
                    break;
                }
                _ => {}
            }
        }
        let value = self.consume();
        if value == "*" {
            Step::Wildcard
        } else {
            Step::Field(value.replace('\\', ""))
        }
    }

    /// `[...]`: a union, a quoted key, or a slice (the `[` read already).
    fn array(&mut self) -> Result<Vec<Step>, String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated array".into()),
                Some(']') => break,
                _ => {}
            }
        }
        let text = self.consume();
        let mut inner: String = text.chars().skip(1).collect();
        inner.pop();
        if inner == "*" {
            inner = ":".into();
        }
        let parts: Vec<&str> = inner.split(',').collect();
        if parts.len() > 1 {
            let members = parts
                .iter()
                .map(|p| sub_action(&format!("[{}]", p.trim_matches(' '))))
                .collect::<Result<_, _>>()?;
            return Ok(vec![Step::Union(members)]);
        }
        if let Some(key) = quoted_key(&inner) {
            return sub_action(&format!(".{key}"));
        }
        Ok(vec![Step::Slice(slice(&inner)?)])
    }

    /// `[?(...)]`: read to the `)` outside quotes, then `]`.
    fn filter(&mut self) -> Result<Step, String> {
        self.pos += 3;
        self.consume();
        let (mut begin, mut end, mut pair) = (false, false, '"');
        loop {
            let r = self.next();
            match r {
                None | Some('\n') => return Err("unterminated filter".into()),
                Some(q @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = q;
                        continue;
                    }
                    if !self.escaped() && q == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                _ => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".into());
        }
        let mut text = self.consume();
        text.pop();
        text.pop();
        let filter = match split_comparison(&text) {
            None => Filter {
                left: sub_action(&text)?,
                op: Op::Exists,
                right: Vec::new(),
            },
            Some((left, op, right)) => {
                let (left, right) = (sub_action(left)?, sub_action(right)?);
                Filter {
                    left,
                    op: operator(op)?,
                    right,
                }
            }
        };
        Ok(Step::Filter(Box::new(filter)))
    }

    /// A quoted string (the opening quote read already), unquoted as Go unquotes it.
    fn quote(&mut self, end: char) -> Result<Step, String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".into()),
                Some(c) if c == end && !self.escaped() => break,
                _ => {}
            }
        }
        let value = self.consume();
        match unquote(&value) {
            Some(s) => Ok(Step::Text(s)),
            None => Err(format!("unquote string {value} error invalid syntax")),
        }
    }
}

/// The steps of `text` read as the one action `{text}` (a union's member, a quoted key, a
/// filter's operand).
fn sub_action(text: &str) -> Result<Vec<Step>, String> {
    let mut parser = Parser::new(&format!("{{{text}}}"));
    let read = parser.template(false)?;
    Ok(match read.into_iter().next() {
        Some(Read::Action(steps, _)) => steps,
        _ => Vec::new(),
    })
}

/// `'key'` (client-go's `^'([^']*)'$`): the key.
fn quoted_key(text: &str) -> Option<&str> {
    let key = text.strip_prefix('\'')?.strip_suffix('\'')?;
    (!key.contains('\'')).then_some(key)
}

/// A slice's three bounds (client-go's `^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`), an index's end
/// derived from its start.
fn slice(text: &str) -> Result<[Bound; 3], String> {
    let parts: Vec<&str> = text.split(':').collect();
    let digits = |p: &str| {
        p.strip_prefix('-')
            .unwrap_or(p)
            .chars()
            .all(|c| c.is_ascii_digit())
    };
    if parts.len() > 3 || !parts.iter().all(|p| digits(p)) {
        return Err(format!("invalid array index {text}"));
    }
    let mut bounds = [Bound::default(); 3];
    for (i, bound) in bounds.iter_mut().enumerate() {
        match parts.get(i) {
            // Given as empty after its colon (`[1:]`): unknown.
            Some(p) if i > 0 && p.is_empty() => {}
            Some(p) if !(i == 0 && p.is_empty()) => {
                bound.known = true;
                bound.value = p
                    .parse()
                    .map_err(|_| format!("array index {p} is not a number"))?;
            }
            _ if i == 1 => {
                *bound = Bound {
                    value: 0,
                    known: true,
                    derived: true,
                };
            }
            _ => {}
        }
    }
    if bounds[1].derived {
        bounds[1].value = bounds[0].value + 1;
    }
    Ok(bounds)
}

/// A filter's `LEFT OP RIGHT` (client-go's `^([^!<>=]+)([!<>=]+)(.+?)$`).
fn split_comparison(text: &str) -> Option<(&str, &str, &str)> {
    let is_op = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let left_end = text.find(is_op)?;
    if left_end == 0 {
        return None;
    }
    let rest = &text[left_end..];
    let run = rest.find(|c: char| !is_op(c)).unwrap_or(rest.len());
    // The operator takes every operator character but what the right side needs (one).
    let op_len = if run == rest.len() { run - 1 } else { run };
    if op_len == 0 || op_len >= rest.len() {
        return None;
    }
    Some((&text[..left_end], &rest[..op_len], &rest[op_len..]))
}

fn operator(op: &str) -> Result<Op, String> {
    Ok(match op {
        "<" => Op::Lt,
        ">" => Op::Gt,
        "==" => Op::Eq,
        "!=" => Op::Ne,
        "<=" => Op::Le,
        ">=" => Op::Ge,
        _ => return Err(format!("unrecognized filter operator {op}")),
    })
}

/// A string quoted in `"` or `'` unquoted as Go's `strconv.UnquoteChar` reads each character
/// (client-go's `UnquoteExtend`); `None` for Go's "invalid syntax".
fn unquote(quoted: &str) -> Option<String> {
    let chars: Vec<char> = quoted.chars().collect();
    let (&quote, rest) = chars.split_first()?;
    let (&last, body) = rest.split_last()?;
    if last != quote || !matches!(quote, '"' | '\'') {
        return None;
    }
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        i += 1;
        if c == quote {
            return None;
        }
        if c != '\\' {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            continue;
        }
        let e = *body.get(i)?;
        i += 1;
        let simple = match e {
            'a' => Some(0x07),
            'b' => Some(0x08),
            'f' => Some(0x0c),
            'n' => Some(b'\n'),
            'r' => Some(b'\r'),
            't' => Some(b'\t'),
            'v' => Some(0x0b),
            '\\' => Some(b'\\'),
            '\'' | '"' if e == quote => Some(e as u8),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            continue;
        }
        match e {
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let digits: String = body.get(i..i + n)?.iter().collect();
                if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                i += n;
                let v = u32::from_str_radix(&digits, 16).ok()?;
                if e == 'x' {
                    out.push(v as u8);
                } else {
                    let c = char::from_u32(v)?;
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
            }
            '0'..='7' => {
                let digits: String = std::iter::once(e)
                    .chain(body.get(i..i + 2)?.iter().copied())
                    .collect();
                i += 2;
                let v = u32::from_str_radix(&digits, 8).ok()?;
                out.push(u8::try_from(v).ok()?);
            }
            _ => return None,
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}
