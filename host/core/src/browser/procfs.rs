//! The process table as /proc shows it: who is alive, who descends from
//! whom. A leaf: both the launcher (is a profile's owner alive?) and the
//! server process (whom to signal) read it.

use std::collections::{HashMap, VecDeque};

/// One process as /proc shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: i32,
    pub state: char,
    pub ppid: i32,
    pub pgid: i32,
}

/// Parses `/proc/<pid>/stat`; the command name may hold spaces and
/// parentheses, so fields are counted from the last `)`.
pub fn parse_stat(stat: &str) -> Option<ProcStat> {
    let pid = stat.split_whitespace().next()?.parse().ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    Some(ProcStat {
        pid,
        state,
        ppid,
        pgid,
    })
}

/// Every process on the machine (Linux); empty elsewhere.
pub fn all_processes() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|s| parse_stat(&s))
        .collect()
}

/// (pid, pgid) of every live process under `root`, `root` excluded.
pub fn descendants(root: i32) -> Vec<(i32, i32)> {
    let all = all_processes();
    let mut children: HashMap<i32, Vec<&ProcStat>> = HashMap::new();
    for p in &all {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut found = Vec::new();
    let mut queue = VecDeque::from([root]);
    while let Some(pid) = queue.pop_front() {
        for child in children.get(&pid).into_iter().flatten() {
            if child.state != 'Z' {
                found.push((child.pid, child.pgid));
            }
            queue.push_back(child.pid);
        }
    }
    found
}

/// Live (not zombie) members of a process group.
pub fn members_of_group(pgid: i32) -> Vec<i32> {
    all_processes()
        .into_iter()
        .filter(|p| p.pgid == pgid && p.state != 'Z')
        .map(|p| p.pid)
        .collect()
}

/// Whether `pid` runs (a zombie does not).
pub fn is_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => parse_stat(&stat).is_some_and(|s| s.state != 'Z'),
        Err(_) => {
            // No /proc (macOS): ask the kernel.
            #[cfg(unix)]
            {
                !std::path::Path::new("/proc/self").exists()
                    && nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
            }
            #[cfg(not(unix))]
            {
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn stat_with_spaces_and_parens_in_the_name() {
        let s = "4242 (Chrome (x) Helper) S 4000 4100 4100 0 -1 4194560 0";
        assert_eq!(
            parse_stat(s),
            Some(ProcStat {
                pid: 4242,
                state: 'S',
                ppid: 4000,
                pgid: 4100
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn our_own_process_is_alive_and_found() {
        let me = std::process::id() as i32;
        assert!(is_alive(me));
        assert!(all_processes().iter().any(|p| p.pid == me));
        assert!(!is_alive(i32::MAX));
    }
}
