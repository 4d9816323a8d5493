//! The core's layers (docs/architecture.md), held against its source: every `crate::` and
//! `super::` path of every module under src/ (use statements and inline paths, test code
//! left out) is an import of the module it names, and imports go down only. Inside an access
//! method, layout <- check <- decode <- walk; wal/ imports page/ and the leaves only; the
//! module graph has no cycle; a PostgreSQL constant is defined once. The checker is also fed
//! made-up sources to show that it fails on an upward import and on a cycle.
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// A module's path under the crate root (`am::nbtree::check`; the root is empty) and its
/// source text.
type Sources = Vec<(Vec<String>, String)>;

/// Where a top-level module sits, bottom up. wal/ is beside the layers: it imports page/ and
/// the leaves only, and file/ and the layers above it may import it.
fn layer(top: &str) -> Option<u8> {
    Some(match top {
        "compress" | "findings" | "words" => 0,
        "page" => 1,
        "tuple" => 2,
        "am" => 3,
        "file" => 4,
        "wal" => 4,
        "cluster" => 5,
        "damage" => 6,
        "text" => 7,
        _ => return None,
    })
}

/// The rooms of an access method, bottom up.
fn room(name: &str) -> Option<u8> {
    Some(match name {
        "layout" => 0,
        "check" => 1,
        "decode" => 2,
        "redo" => 3,
        "walk" => 4,
        _ => return None,
    })
}

/// Every .rs file under `dir` as a module path and its text, test-only files (those a parent
/// declares under `#[cfg(test)]`) left out.
fn read_sources(dir: &Path) -> Sources {
    fn walk(dir: &Path, prefix: &[String], out: &mut Sources) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            if path.is_dir() {
                let mut p = prefix.to_vec();
                p.push(name);
                walk(&path, &p, out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let mut p = prefix.to_vec();
                if stem != "mod" && stem != "lib" {
                    p.push(stem.to_owned());
                }
                out.push((p, fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut all = Vec::new();
    walk(dir, &[], &mut all);
    let test_only: BTreeSet<Vec<String>> = all
        .iter()
        .flat_map(|(m, src)| {
            let m = m.clone();
            test_module_declarations(src)
                .into_iter()
                .map(move |child| [m.clone(), vec![child]].concat())
        })
        .collect();
    all.into_iter()
        .filter(|(m, _)| !test_only.contains(m))
        .collect()
}

/// `#[cfg(test)] mod name;` declarations of a file.
fn test_module_declarations(src: &str) -> Vec<String> {
    let lines: Vec<&str> = src.lines().map(str::trim).collect();
    lines
        .windows(2)
        .filter(|w| w[0] == "#[cfg(test)]")
        .filter_map(|w| w[1].strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_owned)
        .collect()
}

/// The text with comments, string and char literals blanked and `#[cfg(test)]` items removed.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            i = end;
        } else if let Some(len) = char_literal(&src[i..]) {
            i += len;
            out.push_str("' '");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if src[i..].starts_with("r#\"") {
            let end = src[i + 3..].find("\"#").map_or(b.len(), |e| i + 3 + e + 2);
            i = end;
            out.push_str("\"\"");
        } else if src[i..].starts_with("#[cfg(test)]") {
            // Skip the attribute and the item it guards: to its `;` or its balanced braces.
            i += "#[cfg(test)]".len();
            let mut depth = 0usize;
            while i < b.len() {
                match b[i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    b';' if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            let c = src[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of a char literal at the start of `s` (`'x'`, `'\\''`, `'\\u{1F}'`), or None
/// (a lifetime, or no quote).
fn char_literal(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('\'')?;
    if let Some(esc) = rest.strip_prefix('\\') {
        let end = esc.find('\'')?;
        return (end <= 10).then_some(end + 3);
    }
    let c = rest.chars().next()?;
    rest[c.len_utf8()..]
        .starts_with('\'')
        .then_some(c.len_utf8() + 2)
}

/// The paths a use tree names: `a::{b, c::{d, e as f}}` -> a::b, a::c::d, a::c::e.
fn flatten_use_tree(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let prefix = tree[..open].trim_end_matches("::").trim();
        let inner = &tree[open + 1..tree.rfind('}').unwrap()];
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..k]);
                    start = k + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        parts
            .into_iter()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .flat_map(|p| {
                flatten_use_tree(p).into_iter().map(move |q| {
                    if q == "self" {
                        prefix.to_owned()
                    } else if prefix.is_empty() {
                        q
                    } else {
                        format!("{prefix}::{q}")
                    }
                })
            })
            .collect()
    } else {
        vec![tree.split(" as ").next().unwrap().trim().to_owned()]
    }
}

/// Every path of `code` rooted at `crate`, `self` or `super`, made absolute from `module`.
fn imported_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        let tail = &rest[at + 4..];
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
            if let Some(end) = tail.find(';') {
                paths.extend(flatten_use_tree(&tail[..end]));
            }
        }
        rest = tail;
    }
    let b = code.as_bytes();
    for root in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(root) {
            let start = from + k;
            from = start + root.len();
            if start > 0 && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_') {
                continue;
            }
            if start >= 2 && &code[start - 2..start] == "::" {
                continue;
            }
            let end = code[start..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| start + e);
            paths.push(code[start..end].trim_end_matches(':').to_owned());
        }
    }
    paths
        .into_iter()
        .filter_map(|p| {
            let segs: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
            let mut abs: Vec<String> = match *segs.first()? {
                "crate" => Vec::new(),
                "self" | "super" => module.to_vec(),
                _ => return None,
            };
            let mut k = 1;
            if segs[0] == "super" {
                abs.pop();
                while segs.get(k) == Some(&"super") {
                    abs.pop();
                    k += 1;
                }
            }
            abs.extend(segs[k..].iter().map(|s| (*s).to_owned()));
            Some(abs)
        })
        .collect()
}

/// The module graph: each module to the modules it imports (the longest module prefix of
/// each path, itself and its own ancestors left out).
fn module_graph(sources: &Sources) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|(m, _)| m.clone()).collect();
    let mut graph = BTreeMap::new();
    for (module, src) in sources {
        let mut targets = BTreeSet::new();
        for path in imported_paths(module, &code_only(src)) {
            let target = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains(p));
            if let Some(t) = target {
                if !t.is_empty() && !module.starts_with(&t) {
                    targets.insert(t);
                }
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// Why the import `from -> to` breaks a rule, if it does.
fn forbidden(from: &[String], to: &[String]) -> Option<String> {
    let (Some(ft), Some(tt)) = (from.first(), to.first()) else {
        return None;
    };
    if ft == tt {
        if ft == "am" && from.len() >= 3 && to.len() >= 3 && from[1] == to[1] {
            let (fr, tr) = (room(&from[2]), room(&to[2]));
            if let (Some(fr), Some(tr)) = (fr, tr) {
                if tr > fr {
                    return Some(format!(
                        "inside an access method, {} may not import {} (layout <- check <- \
                         decode <- walk)",
                        from[2], to[2]
                    ));
                }
            }
        }
        return None;
    }
    if ft == "wal" && !matches!(layer(tt), Some(0 | 1)) {
        return Some(String::from("wal imports page/ and the leaves only"));
    }
    if tt == "wal" {
        let redo = from.first().map(String::as_str) == Some("am")
            && from.get(2).map(String::as_str) == Some("redo");
        if redo || layer(ft).is_some_and(|l| l > 4) || ft == "file" {
            return None;
        }
        return Some(String::from(
            "only am/*/redo.rs, file/ and the layers above it import wal",
        ));
    }
    match (layer(ft), layer(tt)) {
        (Some(f), Some(t)) if t < f => None,
        (Some(0), Some(0)) => None,
        (Some(_), Some(_)) => Some(format!("{ft} may not import {tt}: imports go down only")),
        _ => Some(format!("{ft} or {tt} is in no layer")),
    }
}

fn violations(sources: &Sources) -> Vec<String> {
    let mut out = Vec::new();
    for (from, targets) in module_graph(sources) {
        for to in targets {
            if let Some(why) = forbidden(&from, &to) {
                out.push(format!("{} -> {}: {why}", from.join("::"), to.join("::")));
            }
        }
    }
    out
}

/// Strongly connected components of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        graph: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Vec<String>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flatten() {
            let Some((w, _)) = graph.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn core_sources() -> Sources {
    read_sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn every_module_is_in_a_layer() {
    let sources = core_sources();
    let lost: Vec<String> = sources
        .iter()
        .filter(|(m, _)| m.first().is_some_and(|top| layer(top).is_none()))
        .map(|(m, _)| m.join("::"))
        .collect();
    assert!(lost.is_empty(), "modules in no layer: {lost:?}");
    // Every access method's file is one of its rooms.
    let stray: Vec<String> = sources
        .iter()
        .filter(|(m, _)| m.len() == 3 && m[0] == "am" && room(&m[2]).is_none())
        .map(|(m, _)| m.join("::"))
        .collect();
    assert!(
        stray.is_empty(),
        "access method files outside the rooms: {stray:?}"
    );
}

#[test]
fn imports_go_down_only() {
    let sources = core_sources();
    // The checker sees the imports: the graph is not empty and holds edges known to exist.
    let graph = module_graph(&sources);
    let page = vec![String::from("page")];
    let edge = |from: &str, to: &str| {
        let f: Vec<String> = from.split("::").map(String::from).collect();
        let t: Vec<String> = to.split("::").map(String::from).collect();
        graph.get(&f).is_some_and(|ts| ts.contains(&t))
    };
    assert!(graph.len() > 60, "only {} modules found", graph.len());
    assert!(edge("am::nbtree::decode", "am::nbtree::check"));
    assert!(edge("am::nbtree::check", "am::nbtree::layout"));
    assert!(edge("cluster::hints", "am::heap::check"));
    assert!(graph.keys().any(|m| m.starts_with(&page)));
    let v = violations(&sources);
    assert!(
        v.is_empty(),
        "imports against the layers:\n{}",
        v.join("\n")
    );
}

#[test]
fn no_import_cycle() {
    let c = cycles(&module_graph(&core_sources()));
    let shown: Vec<String> = c
        .iter()
        .map(|comp| {
            comp.iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(" <-> ")
        })
        .collect();
    assert!(c.is_empty(), "import cycles:\n{}", shown.join("\n"));
}

#[test]
fn a_postgresql_constant_is_defined_once() {
    // pgpage's own file formats' header fields, not PostgreSQL's.
    let own = ["MAGIC", "VERSION", "ROW_BYTES", "MAX_DEPTH"];
    let mut defined: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (module, src) in core_sources() {
        for line in code_only(&src).lines() {
            let l = line
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub ");
            let Some(rest) = l.strip_prefix("const ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            // Top level only (an unindented line), upper-case names only.
            if line.starts_with(char::is_whitespace)
                || name.len() < 2
                || !rest[name.len()..].starts_with(':')
            {
                continue;
            }
            if !own.contains(&name.as_str()) {
                defined.entry(name).or_default().push(module.join("::"));
            }
        }
    }
    assert!(defined.contains_key("BTP_META") && defined.contains_key("FORK_NAMES"));
    let twice: Vec<String> = defined
        .iter()
        .filter(|(_, at)| at.len() > 1)
        .map(|(name, at)| format!("{name}: {}", at.join(", ")))
        .collect();
    assert!(
        twice.is_empty(),
        "defined more than once:\n{}",
        twice.join("\n")
    );
}

fn fake(files: &[(&str, &str)]) -> Sources {
    files
        .iter()
        .map(|(m, src)| {
            let path = if m.is_empty() {
                Vec::new()
            } else {
                m.split("::").map(String::from).collect()
            };
            (path, (*src).to_owned())
        })
        .collect()
}

#[test]
fn the_checker_fails_on_an_upward_import() {
    let sources = fake(&[
        ("page", "pub mod bufpage;"),
        (
            "page::bufpage",
            "use crate::am::kind::detect_kind;\nfn f() {}",
        ),
        ("am", "pub mod kind;"),
        ("am::kind", "use crate::page::bufpage::ItemId;"),
    ]);
    let v = violations(&sources);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("page::bufpage -> am::kind"), "{v:?}");
    // The same import in a comment, a string or test code is no import.
    let quiet = fake(&[
        ("page", "pub mod bufpage;"),
        (
            "page::bufpage",
            "// use crate::am::kind;\nconst S: &str = \"crate::am::kind\";\n\
             #[cfg(test)]\nmod tests { use crate::am::kind::detect_kind; }",
        ),
        ("am", "pub mod kind;"),
        ("am::kind", ""),
    ]);
    assert!(violations(&quiet).is_empty());
}

#[test]
fn the_checker_fails_on_rooms_out_of_order_wal_and_inline_paths() {
    let sources = fake(&[
        ("am::gin::check", "fn f() { super::decode::leaf_items(); }"),
        ("am::gin::decode", "use super::layout::{GIN_LEAF, GinMeta};"),
        ("am::gin::layout", ""),
        ("wal", "use crate::tuple::{Attribute as A};"),
        ("tuple", ""),
        ("file", "fn g() { let _ = crate::wal::record_type(0, 0); }"),
        ("cluster", "use crate::wal::{self};"),
    ]);
    let v = violations(&sources);
    assert!(
        v.iter()
            .any(|x| x.starts_with("am::gin::check -> am::gin::decode")),
        "{v:?}"
    );
    assert!(v.iter().any(|x| x.starts_with("wal -> tuple")), "{v:?}");
    assert_eq!(v.len(), 2, "{v:?}");
}

#[test]
fn the_checker_finds_a_cycle() {
    let sources = fake(&[
        ("tuple", "use crate::tuple::toast::detoast;"),
        ("tuple::toast", "use crate::tuple::value::Column;"),
        ("tuple::value", "use super::toast::{self, Toast};"),
    ]);
    let c = cycles(&module_graph(&sources));
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].len(), 2, "{c:?}");
}
