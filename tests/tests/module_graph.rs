//! No module cycles: in `core`, `verifier` and `prover-gpu`, the modules (one per source
//! file) that refer to each other by path (`crate::a::b`, `super::x`, `use super::{x, y}`)
//! form no cycle, leaving out references between a module and its own ancestors (a
//! `mod.rs` and its children share a folder by design). Comments are left out; code under
//! `#[cfg(test)]` counts (a test that reaches back is a cycle too).
//!
//! The graph is read from the source text, not from rustc: a path spelled through a `use`
//! alias or a glob of a sibling is seen only where the sibling is named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Every module of a crate's `src` folder and its file (`bin/` left out).
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<Module, PathBuf>) {
        for e in std::fs::read_dir(dir).expect("read a source folder") {
            let p = e.expect("a folder entry").path();
            if p.is_dir() {
                walk(&p, src, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(src).expect("under src");
                let mut m: Module = rel
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                    m.pop();
                }
                if m.first().is_some_and(|f| f == "bin") {
                    continue;
                }
                out.insert(m, p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// The text without `//` comments (doc comments included).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The modules `m` (with source `text`) names.
fn references(m: &Module, text: &str, mods: &BTreeMap<Module, PathBuf>) -> BTreeSet<Module> {
    let text = code(text);
    let mut out = BTreeSet::new();
    let parent: Module = m[..m.len().saturating_sub(1)].to_vec();
    let resolve = |path: Vec<String>, out: &mut BTreeSet<Module>| {
        for k in (0..=path.len()).rev() {
            if mods.contains_key(&path[..k]) {
                out.insert(path[..k].to_vec());
                return;
            }
        }
    };
    for head in ["crate", "super"] {
        let mut rest = text.as_str();
        while let Some(i) = rest.find(head) {
            let before = rest[..i].chars().next_back();
            let after = &rest[i + head.len()..];
            rest = after;
            if before.is_some_and(ident) || !after.starts_with("::") {
                continue;
            }
            let mut base: Module = if head == "crate" {
                Vec::new()
            } else {
                parent.clone()
            };
            let mut tail = &after[2..];
            while head == "super" && tail.starts_with("super::") {
                base.pop();
                tail = &tail["super::".len()..];
            }
            if let Some(group) = tail.strip_prefix('{') {
                // use super::{a, b::c, …}: each first segment.
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let first: String = item.trim().chars().take_while(|&c| ident(c)).collect();
                    if !first.is_empty() {
                        let mut p = base.clone();
                        p.push(first);
                        resolve(p, &mut out);
                    }
                }
                continue;
            }
            let mut p = base;
            let mut t = tail;
            loop {
                let seg: String = t.chars().take_while(|&c| ident(c)).collect();
                if seg.is_empty() {
                    break;
                }
                t = &t[seg.len()..];
                p.push(seg);
                match t.strip_prefix("::") {
                    Some(next) if !next.starts_with('{') => t = next,
                    _ => break,
                }
            }
            resolve(p, &mut out);
        }
    }
    out
}

/// The cycles (strongly connected components of more than one module) of a crate.
fn cycles(src: &Path) -> Vec<Vec<String>> {
    let mods = modules(src);
    let ancestor = |a: &Module, b: &Module| b.len() >= a.len() && b[..a.len()] == a[..];
    let graph: BTreeMap<Module, BTreeSet<Module>> = mods
        .iter()
        .map(|(m, p)| {
            let text = std::fs::read_to_string(p).expect("read a source file");
            let refs = references(m, &text, &mods)
                .into_iter()
                .filter(|r| r != m && !ancestor(r, m) && !ancestor(m, r))
                .collect();
            (m.clone(), refs)
        })
        .collect();
    // Reachability closure (the crates have well under a hundred modules).
    let reach = |from: &Module| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(v) = stack.pop() {
            for w in &graph[&v] {
                if seen.insert(w.clone()) {
                    stack.push(w.clone());
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&Module, BTreeSet<Module>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in graph.keys() {
        if done.contains(m) || !reachable[m].contains(m) {
            continue;
        }
        let comp: Vec<String> = graph
            .keys()
            .filter(|o| reachable[m].contains(*o) && reachable[*o].contains(m))
            .inspect(|o| {
                done.insert((*o).clone());
            })
            .map(|o| o.join("::"))
            .collect();
        out.push(comp);
    }
    out
}

#[test]
fn no_module_cycles() {
    for krate in ["core", "verifier", "prover-gpu"] {
        let c = cycles(&root().join(krate).join("src"));
        assert!(c.is_empty(), "{krate}: module cycles {c:?}");
    }
}

/// The detector sees a cycle where there is one.
#[test]
fn a_cycle_is_seen() {
    let d = std::env::temp_dir().join(format!("kestrel-module-graph-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("x")).unwrap();
    std::fs::write(d.join("lib.rs"), "pub mod a;\npub mod b;\npub mod x;\n").unwrap();
    std::fs::write(
        d.join("a.rs"),
        "use crate::b::B;\n// crate::x::y is only a comment\n",
    )
    .unwrap();
    std::fs::write(d.join("b.rs"), "pub struct B;\nfn f() { crate::a::g() }\n").unwrap();
    std::fs::write(d.join("x/mod.rs"), "pub mod y;\nuse super::{a, b};\n").unwrap();
    std::fs::write(d.join("x/y.rs"), "use crate::x::Z;\n").unwrap();
    assert_eq!(cycles(&d), vec![vec!["a".to_string(), "b".to_string()]]);
    // y → a through `super::super`, a → x::y: a second cycle.
    std::fs::write(d.join("x/y.rs"), "use super::super::a;\n").unwrap();
    std::fs::write(d.join("a.rs"), "use crate::b::B;\nuse crate::x::y::Y;\n").unwrap();
    assert_eq!(
        cycles(&d),
        vec![vec!["a".to_string(), "b".to_string(), "x::y".to_string()]]
    );
    std::fs::write(d.join("a.rs"), "use crate::b::B;\n").unwrap();
    std::fs::write(d.join("b.rs"), "pub struct B;\n").unwrap();
    assert!(cycles(&d).is_empty());
}
