//! Ryzom workspace enumeration without executing Python (digest §6.2): every
//! `workspace/**/directories.py` is evaluated by a tiny interpreter for exactly what those
//! files use — string and list literals, `=`, `+=`, `+` on strings and lists, names
//! assigned earlier, comments; `import` / `from … import *` lines are skipped. Names the
//! file does not assign (`DatabaseDirectory`, `DataCommonDirectory`, …) come from
//! `--define NAME=VALUE`. Anything else is an error naming file and line.
//!
//! The `<Process>SourceDirectories` lists, joined to the graphics root, are read
//! non-recursively for `*.max` (case-insensitive), sorted — as the build pipeline does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A value of the evaluator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A string.
    Str(String),
    /// A list (possibly nested).
    List(Vec<Value>),
}

impl Value {
    /// Every string in the value, depth first (nested lists flattened).
    pub fn strings(&self) -> Vec<String> {
        match self {
            Value::Str(s) => vec![s.clone()],
            Value::List(items) => items.iter().flat_map(Value::strings).collect(),
        }
    }
}

/// An evaluation error at a place in a file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct EvalError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// What one file assigns, plus the statements that failed (by the name they assign).
#[derive(Debug, Default)]
pub struct Evaluated {
    /// Final value of every name the file assigned (defines not included).
    pub names: BTreeMap<String, Value>,
    /// Names whose value is unknown because a statement assigning them failed.
    pub poisoned: BTreeMap<String, EvalError>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Str(String),
    Assign,
    AddAssign,
    Plus,
    Open,
    Close,
    Comma,
    Newline,
}

fn tokenize(file: &str, text: &str) -> Result<Vec<(Tok, usize)>, EvalError> {
    let err = |line: usize, message: String| EvalError { file: file.to_string(), line, message };
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut line = 1usize;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut at_line_start = true;
    while i < chars.len() {
        let c = chars[i];
        if at_line_start && depth == 0 {
            let rest: String = chars[i..].iter().take_while(|c| **c != '\n').collect();
            let trimmed = rest.trim_start();
            if trimmed.starts_with("import ") || trimmed.starts_with("from ") {
                i += rest.chars().count();
                continue;
            }
        }
        at_line_start = false;
        match c {
            '\n' => {
                if depth == 0 {
                    out.push((Tok::Newline, line));
                    at_line_start = true;
                }
                line += 1;
                i += 1;
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ' ' | '\t' | '\r' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => {
                line += 1;
                i += 2;
            }
            '=' => {
                out.push((Tok::Assign, line));
                i += 1;
            }
            '+' if chars.get(i + 1) == Some(&'=') => {
                out.push((Tok::AddAssign, line));
                i += 2;
            }
            '+' => {
                out.push((Tok::Plus, line));
                i += 1;
            }
            '[' => {
                depth += 1;
                out.push((Tok::Open, line));
                i += 1;
            }
            ']' => {
                depth = depth.checked_sub(1).ok_or_else(|| err(line, "unbalanced `]`".into()))?;
                out.push((Tok::Close, line));
                i += 1;
            }
            ',' => {
                out.push((Tok::Comma, line));
                i += 1;
            }
            '"' | '\'' => {
                let (text, end) = string_literal(&chars, i).ok_or_else(|| err(line, "unterminated string".into()))?;
                out.push((Tok::Str(text), line));
                i = end;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                out.push((Tok::Name(chars[start..i].iter().collect()), line));
            }
            other => return Err(err(line, format!("unsupported construct `{other}` (only strings, lists, =, +=, +)"))),
        }
    }
    out.push((Tok::Newline, line));
    Ok(out)
}

/// The quoted string starting at `chars[start]` (its quote), with `\n`, `\t` and `\<c>`
/// escapes, and the index just past its closing quote; `None` when the line or the text
/// ends first.
fn string_literal(chars: &[char], start: usize) -> Option<(String, usize)> {
    let quote = chars[start];
    let mut text = String::new();
    let mut i = start + 1;
    loop {
        match *chars.get(i)? {
            '\n' => return None,
            q if q == quote => return Some((text, i + 1)),
            '\\' => {
                text.push(match *chars.get(i + 1)? {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
                i += 2;
            }
            ch => {
                text.push(ch);
                i += 1;
            }
        }
    }
}

struct Parser<'a> {
    file: &'a str,
    toks: &'a [(Tok, usize)],
    pos: usize,
}

impl Parser<'_> {
    fn line(&self) -> usize {
        self.toks.get(self.pos).or(self.toks.last()).map_or(0, |t| t.1)
    }
    fn err(&self, message: impl Into<String>) -> EvalError {
        EvalError { file: self.file.to_string(), line: self.line(), message: message.into() }
    }
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.0.clone());
        self.pos += 1;
        t
    }
    fn expr(&mut self, env: &dyn Fn(&str) -> Option<Value>) -> Result<Value, EvalError> {
        let mut acc = self.term(env)?;
        while self.peek() == Some(&Tok::Plus) {
            self.pos += 1;
            let rhs = self.term(env)?;
            acc = match (acc, rhs) {
                (Value::Str(a), Value::Str(b)) => Value::Str(a + &b),
                (Value::List(mut a), Value::List(b)) => {
                    a.extend(b);
                    Value::List(a)
                }
                _ => return Err(self.err("`+` between a string and a list")),
            };
        }
        Ok(acc)
    }
    fn term(&mut self, env: &dyn Fn(&str) -> Option<Value>) -> Result<Value, EvalError> {
        match self.next() {
            Some(Tok::Str(s)) => {
                let mut s = s;
                while let Some(Tok::Str(more)) = self.peek().cloned() {
                    self.pos += 1; // adjacent literals concatenate, as in Python
                    s.push_str(&more);
                }
                Ok(Value::Str(s))
            }
            Some(Tok::Name(n)) => env(&n).ok_or_else(|| {
                self.pos -= 1;
                let e = self.err(format!("`{n}` is not defined (assign it earlier or pass --define {n}=VALUE)"));
                self.pos += 1;
                e
            }),
            Some(Tok::Open) => {
                let mut items = Vec::new();
                loop {
                    if self.peek() == Some(&Tok::Close) {
                        self.pos += 1;
                        break;
                    }
                    items.push(self.expr(env)?);
                    match self.next() {
                        Some(Tok::Comma) => {}
                        Some(Tok::Close) => break,
                        _ => return Err(self.err("expected `,` or `]` in a list")),
                    }
                }
                Ok(Value::List(items))
            }
            _ => {
                self.pos = self.pos.saturating_sub(1);
                Err(self.err("expected a string, a list or a name"))
            }
        }
    }
    fn skip_statement(&mut self) {
        while let Some(t) = self.next() {
            if t == Tok::Newline {
                break;
            }
        }
    }
}

/// Evaluates one `directories.py`. Syntax errors fail the file; a statement that uses an
/// undefined name poisons the name it assigns (reported if that name is ever needed).
pub fn evaluate(file: &str, text: &str, defines: &BTreeMap<String, String>) -> Result<Evaluated, EvalError> {
    let toks = tokenize(file, text)?;
    let mut p = Parser { file, toks: &toks, pos: 0 };
    let mut ev = Evaluated::default();
    while p.pos < toks.len() {
        if p.peek() == Some(&Tok::Newline) {
            p.pos += 1;
            continue;
        }
        let Some(Tok::Name(target)) = p.next() else {
            p.pos -= 1;
            return Err(p.err("expected `NAME = …` or `NAME += …`"));
        };
        let op = p.next();
        if !matches!(op, Some(Tok::Assign | Tok::AddAssign)) {
            p.pos -= 1;
            return Err(p.err(format!("unsupported statement after `{target}` (only = and +=)")));
        }
        let env = |n: &str| ev.names.get(n).cloned().or_else(|| defines.get(n).map(|v| Value::Str(v.clone())));
        let value = match p.expr(&env) {
            Ok(v) => v,
            Err(e) if e.message.contains("is not defined") => {
                ev.poisoned.insert(target.clone(), e);
                p.skip_statement();
                continue;
            }
            Err(e) => return Err(e),
        };
        if p.next() != Some(Tok::Newline) {
            p.pos -= 1;
            return Err(p.err("unexpected tokens after the expression"));
        }
        if ev.poisoned.contains_key(&target) {
            continue; // stays unknown: an earlier part failed
        }
        if op == Some(Tok::AddAssign) {
            let current =
                ev.names.get(&target).cloned().or_else(|| defines.get(&target).map(|v| Value::Str(v.clone())));
            let joined = match (current, value) {
                (Some(Value::List(mut a)), Value::List(b)) => {
                    a.extend(b);
                    Value::List(a)
                }
                (Some(Value::Str(a)), Value::Str(b)) => Value::Str(a + &b),
                (None, _) => {
                    return Err(EvalError {
                        file: file.into(),
                        line: p.toks[p.pos - 1].1,
                        message: format!("`{target} +=` before `{target}` was assigned"),
                    })
                }
                _ => {
                    return Err(EvalError {
                        file: file.into(),
                        line: p.toks[p.pos - 1].1,
                        message: format!("`{target} +=` mixes a string and a list"),
                    })
                }
            };
            ev.names.insert(target, joined);
        } else {
            ev.names.insert(target, value);
        }
    }
    Ok(ev)
}

/// `skel` → `SkelSourceDirectories`, `pacs_prim` → `PacsPrimSourceDirectories`; a name
/// already ending in `SourceDirectories` is kept.
pub fn process_variable(process: &str) -> String {
    if process.ends_with("SourceDirectories") {
        return process.to_string();
    }
    let camel: String = process
        .split(['_', '-'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect();
    format!("{camel}SourceDirectories")
}

/// Every `directories.py` under `workspace`, sorted.
pub fn directories_files(workspace: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![workspace.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.file_name().is_some_and(|n| n == "directories.py") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Source directories (relative to the graphics root) of `process` across the workspace,
/// in file order, duplicates kept once. Errors: every file that failed, and every
/// poisoned definition of the process variable; a failed statement assigning another
/// variable is only a notice.
pub fn source_directories(
    workspace: &Path,
    process: &str,
    defines: &BTreeMap<String, String>,
    notify: &crate::notice::Notifier,
) -> Result<Vec<String>, Vec<EvalError>> {
    let var = process_variable(process);
    let mut dirs = Vec::new();
    let mut errors = Vec::new();
    let files = directories_files(workspace);
    if files.is_empty() {
        errors.push(EvalError {
            file: workspace.display().to_string(),
            line: 0,
            message: "no directories.py under this workspace".into(),
        });
    }
    for path in files {
        let name = path.display().to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                errors.push(EvalError { file: name, line: 0, message: e.to_string() });
                continue;
            }
        };
        match evaluate(&name, &text, defines) {
            Ok(ev) => {
                if let Some(e) = ev.poisoned.get(&var) {
                    errors.push(e.clone());
                }
                for (other, e) in ev.poisoned.iter().filter(|(n, _)| **n != var) {
                    notify.send(crate::notice::Notice::UnneededAssignmentFailed {
                        error: e.to_string(),
                        variable: other.clone(),
                        process: process.to_string(),
                    });
                }
                if let Some(v) = ev.names.get(&var) {
                    for d in v.strings() {
                        let d = d.replace('\\', "/");
                        if !dirs.contains(&d) {
                            dirs.push(d);
                        }
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(dirs)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn evaluates_every_construct() {
        let text = r#"
# comment
import os
from buildsite import *
ContinentName = "fyros"
ContinentPath = 'continents/' + ContinentName  # trailing comment
SkelSourceDirectories = [ ]
SkelSourceDirectories += [ "stuff/" + ContinentName + "/skel" ]
SkelSourceDirectories += [
    ContinentPath + "/a",
    "b",
]
SkelSourceDirectories += [ DatabaseDirectory ]
Nested = [ [ "x", "y" ], "z" ] + [ "w" ]
Other = [ UndefinedThing ]
"#;
        let ev = evaluate("d.py", text, &defs(&[("DatabaseDirectory", "R:/graphics")])).unwrap();
        assert_eq!(
            ev.names["SkelSourceDirectories"].strings(),
            vec!["stuff/fyros/skel", "continents/fyros/a", "b", "R:/graphics"]
        );
        assert_eq!(ev.names["Nested"].strings(), vec!["x", "y", "z", "w"]);
        assert_eq!(ev.poisoned["Other"].line, 15);
    }

    #[test]
    fn rejects_other_constructs_with_file_and_line() {
        let e = evaluate("d.py", "A = [ ]\nA = os.path.join('a')\n", &BTreeMap::new()).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("d.py", 2), "{e}");
        let e = evaluate("d.py", "A = \"x\" * 3\n", &BTreeMap::new()).unwrap_err();
        assert_eq!(e.line, 1);
        let e = evaluate("d.py", "A = [ \"a\" ] + \"b\"\n", &BTreeMap::new()).unwrap_err();
        assert!(e.message.contains("string and a list"), "{e}");
    }

    #[test]
    fn process_names() {
        assert_eq!(process_variable("skel"), "SkelSourceDirectories");
        assert_eq!(process_variable("pacs_prim"), "PacsPrimSourceDirectories");
        assert_eq!(process_variable("ShapeSourceDirectories"), "ShapeSourceDirectories");
    }
}
