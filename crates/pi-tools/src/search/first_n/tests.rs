//! Tests of the first-n walk: the same answer as an ordered walk.

use super::*;
use crate::search::{Flavor, sort_key};

#[test]
fn path_order_is_the_sort_key_order() {
    let paths = ["/a/b", "/a.b", "/a/b/c", "/a-b", "/a", "/ab", "/a/b.c"];
    for x in paths {
        for y in paths {
            let (px, py) = (Path::new(x), Path::new(y));
            assert_eq!(path_cmp(px, py), sort_key(px).cmp(&sort_key(py)), "{x} {y}");
        }
    }
}

proptest::proptest! {
    // Long shared prefixes and differences at any byte (the comparison goes
    // eight bytes at a time).
    #[test]
    fn path_order_is_the_sort_key_order_for_any_paths(x in "/[ab/.-]{0,40}", y in "/[ab/.-]{0,40}") {
        let (px, py) = (Path::new(&x), Path::new(&y));
        proptest::prop_assert_eq!(path_cmp(px, py), sort_key(px).cmp(&sort_key(py)));
        let (lx, ly) = (format!("/some/long/search/folder{x}"), format!("/some/long/search/folder{y}"));
        let (lx, ly) = (Path::new(&lx), Path::new(&ly));
        proptest::prop_assert_eq!(path_cmp(lx, ly), sort_key(lx).cmp(&sort_key(ly)));
    }
}

#[test]
fn keeps_the_first_n_in_path_order() {
    let d = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for i in 0..200 {
        let p = d.path().join(format!("d{}/s{}/f{i:03}", i % 7, i % 4));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "").unwrap();
        all.push(p);
    }
    all.sort_by(|a, b| path_cmp(a, b));
    let spec = WalkSpec { root: d.path(), flavor: Flavor::Fd, overrides: None, require_git: false };
    let files = |e: &DirEntry| e.file_type().is_some_and(|t| t.is_file()).then_some(());
    for n in [1, 5, 37, 200, 500] {
        let got: Vec<PathBuf> =
            first_n(spec.clone(), n, None, walks_by_roots(spec.root), &CancellationToken::new(), files)
                .unwrap()
                .into_iter()
                .map(|(p, _)| p)
                .collect();
        assert_eq!(got, all[..n.min(200)].to_vec(), "n = {n}");
    }
    let t = CancellationToken::new();
    t.cancel();
    assert!(first_n(spec.clone(), 3, None, walks_by_roots(spec.root), &t, files).is_none());
}

#[test]
fn a_wide_root_with_shared_name_prefixes_gives_the_same_answer() {
    let d = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for i in 0..70 {
        // Names sharing prefixes (`p1`, `p1.x`, `p10`) test the slice edges.
        let dir = d.path().join(if i % 3 == 0 { format!("p{i}.x") } else { format!("p{i}") });
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..(i % 4) {
            let p = dir.join(format!("f{f}.md"));
            std::fs::write(&p, "").unwrap();
            all.push(p);
        }
        let top = d.path().join(format!("p{i}.md"));
        std::fs::write(&top, "").unwrap();
        all.push(top);
    }
    all.sort_by(|a, b| path_cmp(a, b));
    let spec = WalkSpec { root: d.path(), flavor: Flavor::Fd, overrides: None, require_git: false };
    let md = |e: &DirEntry| e.path().extension().is_some_and(|x| x == "md").then_some(());
    for n in [1, 3, 10, 40, 90, 150, 1000] {
        let got: Vec<PathBuf> =
            first_n(spec.clone(), n, None, walks_by_roots(spec.root), &CancellationToken::new(), md)
                .unwrap()
                .into_iter()
                .map(|(p, _)| p)
                .collect();
        assert_eq!(got, all[..n.min(all.len())].to_vec(), "n = {n}");
    }
}

#[test]
fn going_on_from_an_ordered_walk_gives_the_same_answer_from_any_point() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..40 {
        let p = d.path().join(format!("a{}/b{}/f{i}.{}", i % 5, i % 3, if i % 3 == 0 { "md" } else { "rs" }));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "").unwrap();
    }
    let spec = WalkSpec { root: d.path(), flavor: Flavor::Fd, overrides: None, require_git: false };
    let md = |e: &DirEntry| e.path().extension().is_some_and(|x| x == "md").then_some(());
    let order: Vec<PathBuf> = crate::search::sorted_walk(spec.clone())
        .filter_map(Result::ok)
        .filter(|e| e.depth() > 0)
        .map(|e| e.path().to_path_buf())
        .collect();
    let all_md: Vec<PathBuf> = order.iter().filter(|p| p.extension().is_some_and(|x| x == "md")).cloned().collect();
    for (n, by_roots) in [(1, false), (4, false), (100, false), (1, true), (4, true), (100, true)] {
        for cut in 0..order.len() {
            let hits: Vec<(PathBuf, ())> = order[..=cut]
                .iter()
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .map(|p| (p.clone(), ()))
                .collect();
            let seen = Seen { hits, upto: order[cut].clone() };
            let got: Vec<PathBuf> = first_n(spec.clone(), n, Some(seen), by_roots, &CancellationToken::new(), md)
                .unwrap()
                .into_iter()
                .map(|(p, _)| p)
                .collect();
            assert_eq!(
                got,
                all_md[..n.min(all_md.len())].to_vec(),
                "n = {n}, by roots {by_roots}, cut after {:?}",
                order[cut]
            );
        }
    }
}

/// A tree where ignore rules decide (walked from the search folder when
/// narrow, by roots when wide): root `.gitignore`, `.ignore` and
/// `.fdignore`, a nested `.gitignore`, a nested repository, hidden folders.
fn ruled_tree(wide: bool) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let w = |rel: &str, text: &str| {
        let p = d.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w(".gitignore", "ignored_dir/\n*.log\n");
    w(".ignore", "secret*\n");
    w(".fdignore", "nofd/\n");
    for f in ["ignored_dir/a.md", "nofd/b.md", "secret.md", "x.log", "top.md"] {
        w(f, "");
    }
    for i in 0..(if wide { 9 } else { 2 }) {
        w(&format!("keep{i}/sub/.gitignore"), "deep.md\n");
        for f in ["sub/deep.md", "sub/ok.md", "f.md", "g.rs"] {
            w(&format!("keep{i}/{f}"), "");
        }
    }
    if !wide {
        // At most three folders at the top: the walk starts from the search folder alone.
        return d;
    }
    w(".hidden/h.md", "");
    std::fs::create_dir_all(d.path().join("nested/.git")).unwrap();
    w("nested/.gitignore", "n.md\n");
    w("nested/n.md", "");
    w("nested/m.md", "");
    // The search folder's rules reaching into the nested repository.
    w("nested/ignored_dir/z.md", "");
    w("nested/y.log", "");
    d
}

#[test]
fn ignore_rules_apply_as_in_the_ordered_walk_from_any_point() {
    for (wide, repo) in [(false, false), (true, false), (true, true)] {
        let d = ruled_tree(wide);
        if repo {
            std::fs::create_dir_all(d.path().join(".git/info")).unwrap();
            std::fs::write(d.path().join(".git/info/exclude"), "top.md\n").unwrap();
        }
        for require_git in [false, true] {
            let spec = WalkSpec { root: d.path(), flavor: Flavor::Fd, overrides: None, require_git };
            let order: Vec<PathBuf> = crate::search::sorted_walk(spec.clone())
                .filter_map(Result::ok)
                .filter(|e| e.depth() > 0)
                .map(|e| e.path().to_path_buf())
                .collect();
            let is_md = |p: &Path| p.extension().is_some_and(|x| x == "md");
            let md = |e: &DirEntry| is_md(e.path()).then_some(());
            let all: Vec<PathBuf> = order.iter().filter(|p| is_md(p)).cloned().collect();
            // The rules decide something in every setting (the rest is the ordered walk's, compared with fd elsewhere).
            assert!(all.iter().all(|p| !p.ends_with("secret.md") && !p.ends_with("nested/n.md")), "{all:?}");
            if require_git == repo {
                // As pi runs it (require_git exactly inside a repository): the git rules apply.
                assert!(!all.iter().any(|p| p.ends_with("ignored_dir/a.md") || p.ends_with("sub/deep.md")), "{all:?}");
                assert_eq!(all.iter().any(|p| p.ends_with("top.md")), !repo, "{all:?}");
            }
            for n in [1, 3, 1000] {
                let want = all[..n.min(all.len())].to_vec();
                let got: Vec<PathBuf> = first_n(spec.clone(), n, None, wide, &CancellationToken::new(), md)
                    .unwrap()
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect();
                assert_eq!(got, want, "wide {wide}, repo {repo}, require_git {require_git}, n {n}");
                for cut in 0..order.len() {
                    let hits = order[..=cut].iter().filter(|p| is_md(p)).map(|p| (p.clone(), ())).collect();
                    let seen = Seen { hits, upto: order[cut].clone() };
                    let got: Vec<PathBuf> = first_n(spec.clone(), n, Some(seen), wide, &CancellationToken::new(), md)
                        .unwrap()
                        .into_iter()
                        .map(|(p, _)| p)
                        .collect();
                    assert_eq!(
                        got, want,
                        "wide {wide}, repo {repo}, require_git {require_git}, n {n}, cut {:?}",
                        order[cut]
                    );
                }
            }
        }
    }
}
