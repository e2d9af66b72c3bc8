//! A line diff that aligns lines the way the reference's diff does: Myers'
//! greedy forward search for a shortest edit script (E. Myers, "An O(ND)
//! Difference Algorithm and Its Variations", 1986), preferring a deletion
//! over an insertion when both reach equally far, with paths that leave the
//! grid dropped. Every run of changes is then reported as its deletions
//! followed by its insertions.
//!
//! The search keeps one row of furthest points per edit distance, so it is
//! bounded: past `max_d` edits it gives up and the caller falls back to
//! another algorithm.

use similar::DiffOp;

/// The furthest x reached on diagonal `k` at step `d - 1` (`row` holds
/// diagonals `-(d-1)..=(d-1)`), if a path is there.
fn at(row: &[i32], d: isize, k: isize) -> Option<isize> {
    let i = k + d - 1;
    if i < 0 {
        return None;
    }
    row.get(i as usize).copied().filter(|&x| x >= 0).map(|x| x as isize)
}

/// The move that reaches diagonal `k` at step `d`: `(is_deletion, x after the
/// move)`. A deletion comes from `k - 1` (one step right), an insertion from
/// `k + 1` (one step down); the one reaching further wins, a deletion on a tie;
/// moves leaving the grid do not count.
fn choose(row: &[i32], d: isize, k: isize, n: isize, m: isize) -> Option<(bool, isize)> {
    let del = (k > -d).then(|| at(row, d, k - 1)).flatten().filter(|&x| x < n).map(|x| x + 1);
    let ins = (k < d).then(|| at(row, d, k + 1)).flatten().filter(|&x| x - (k + 1) < m);
    match (del, ins) {
        (Some(dx), Some(ix)) if dx - 1 < ix => Some((false, ix)),
        (Some(dx), _) => Some((true, dx)),
        (None, Some(ix)) => Some((false, ix)),
        (None, None) => None,
    }
}

/// Ops turning `old` into `new`, or `None` when more than `max_d` edits are needed.
pub(super) fn diff<T: PartialEq>(old: &[T], new: &[T], max_d: usize) -> Option<Vec<DiffOp>> {
    let (n, m) = (old.len() as isize, new.len() as isize);
    if n > i32::MAX as isize || m > i32::MAX as isize {
        return None;
    }
    let max_d = max_d.min(old.len() + new.len()) as isize;
    let snake = |mut x: isize, mut y: isize| {
        while x < n && y < m && old[x as usize] == new[y as usize] {
            x += 1;
            y += 1;
        }
        x
    };
    let start = snake(0, 0);
    if start >= n && start >= m {
        let equal = DiffOp::Equal { old_index: 0, new_index: 0, len: old.len() };
        return Some(if old.is_empty() { vec![] } else { vec![equal] });
    }
    // trace[d][k + d] = furthest x on diagonal k = x - y after d edits; -1: no path.
    let mut trace: Vec<Vec<i32>> = vec![vec![start as i32]];
    for d in 1..=max_d {
        let prev = &trace[d as usize - 1];
        let mut row = vec![-1i32; (2 * d + 1) as usize];
        for k in (-d..=d).step_by(2) {
            let Some((_, x)) = choose(prev, d, k, n, m) else { continue };
            let x = snake(x, x - k);
            row[(k + d) as usize] = x as i32;
            if x >= n && x - k >= m {
                return Some(backtrack(&trace, n, m, d, k, start));
            }
        }
        trace.push(row);
    }
    None
}

/// Walk the trace back from (n, m) reached on diagonal `k_end` after `d_end`
/// edits, then emit ops front to back.
fn backtrack(trace: &[Vec<i32>], n: isize, m: isize, d_end: isize, k_end: isize, start: isize) -> Vec<DiffOp> {
    let (n_us, m_us) = (n as usize, m as usize);
    // Moves from the end: (is_deletion, x, y) of the point before the move.
    let mut moves: Vec<(bool, isize, isize)> = Vec::new();
    let mut k = k_end;
    let (mut x, mut y) = (n, m);
    for d in (1..=d_end).rev() {
        let prev = &trace[d as usize - 1];
        let Some((deletion, _)) = choose(prev, d, k, n, m) else { break };
        let from = if deletion { k - 1 } else { k + 1 };
        let px = at(prev, d, from).unwrap_or(0);
        let py = px - from;
        moves.push((deletion, px, py));
        (x, y, k) = (px, py, from);
    }
    debug_assert!(x == y && x == start);
    let changes: Vec<(bool, usize, usize)> =
        moves.into_iter().rev().map(|(del, px, py)| (del, px as usize, py as usize)).collect();
    let (n, m) = (n_us, m_us);
    let mut ops = Vec::new();
    let (mut ox, mut ny) = (0usize, 0usize);
    let mut i = 0;
    while i < changes.len() {
        let (_, cx, cy) = changes[i];
        if cx > ox {
            ops.push(DiffOp::Equal { old_index: ox, new_index: ny, len: cx - ox });
            (ox, ny) = (cx, cy);
        }
        // A run of changes: moves that follow each other without a snake.
        let (run_x, run_y) = (ox, ny);
        while i < changes.len() && changes[i].1 == ox && changes[i].2 == ny {
            if changes[i].0 {
                ox += 1;
            } else {
                ny += 1;
            }
            i += 1;
        }
        push_change(&mut ops, run_x, ox - run_x, run_y, ny - run_y);
        // After the run comes the snake to the next change (or the end).
        let (next_x, next_y) = if i < changes.len() { (changes[i].1, changes[i].2) } else { (n, m) };
        if next_x > ox {
            ops.push(DiffOp::Equal { old_index: ox, new_index: ny, len: next_x - ox });
            debug_assert_eq!(next_x - ox, next_y - ny);
            (ox, ny) = (next_x, next_y);
        }
    }
    if ox < n {
        ops.push(DiffOp::Equal { old_index: ox, new_index: ny, len: n - ox });
    }
    ops
}

fn push_change(ops: &mut Vec<DiffOp>, old_index: usize, old_len: usize, new_index: usize, new_len: usize) {
    match (old_len, new_len) {
        (0, 0) => {}
        (_, 0) => ops.push(DiffOp::Delete { old_index, old_len, new_index }),
        (0, _) => ops.push(DiffOp::Insert { old_index, new_index, new_len }),
        _ => ops.push(DiffOp::Replace { old_index, old_len, new_index, new_len }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(old: &[&str], new: &[&str]) -> String {
        let ops = diff(old, new, 100).unwrap();
        let mut s = String::new();
        for op in ops {
            match op {
                DiffOp::Equal { old_index, len, .. } => {
                    old[old_index..old_index + len].iter().for_each(|l| s += &format!(" {l}"))
                }
                DiffOp::Delete { old_index, old_len, .. } => {
                    old[old_index..old_index + old_len].iter().for_each(|l| s += &format!("-{l}"))
                }
                DiffOp::Insert { new_index, new_len, .. } => {
                    new[new_index..new_index + new_len].iter().for_each(|l| s += &format!("+{l}"))
                }
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    old[old_index..old_index + old_len].iter().for_each(|l| s += &format!("-{l}"));
                    new[new_index..new_index + new_len].iter().for_each(|l| s += &format!("+{l}"));
                }
            }
        }
        s
    }

    #[test]
    fn prefers_deletions() {
        assert_eq!(render(&["a", "b", "c", "d"], &["a", "c", "b", "d"]), " a-b c+b d");
        assert_eq!(render(&["a", "b"], &["a", "b", "b"]), " a b+b");
        assert_eq!(render(&["a"], &["b"]), "-a+b");
        assert_eq!(render(&[], &["b"]), "+b");
        assert_eq!(render(&["a"], &[]), "-a");
        assert_eq!(render(&[], &[]), "");
        assert_eq!(render(&["x", "y"], &["x", "y"]), " x y");
    }

    #[test]
    fn gives_up_past_the_bound() {
        let old: Vec<u32> = (0..50).collect();
        let new: Vec<u32> = (100..150).collect();
        assert!(diff(&old, &new, 10).is_none());
        assert!(diff(&old, &new, 100).is_some());
    }
}
