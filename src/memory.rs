//! Host memory: how much the machine (or the container's cgroup) can still give, so that a
//! job too large for it fails at once with one clear line instead of being killed halfway.
//!
//! Tests: this file's unit tests; tests/engine/automaton.rs.

/// Bytes of memory available to this process, if the OS says: Linux's `MemAvailable`, lowered
/// to the room left under a cgroup v2 limit (`memory.max` − `memory.current`) when there is one,
/// as under Kubernetes or Slurm, and to the room left under `ulimit -v` (RLIMIT_AS). `None`
/// where none can be read.
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let host = meminfo.as_deref().and_then(meminfo_available);
    let read = |f: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok();
    let cgroup = match (read("memory.max"), read("memory.current")) {
        (Some(max), Some(current)) => cgroup_room(&max, &current),
        _ => None,
    };
    let limit = match (host, cgroup) {
        (Some(h), Some(c)) => Some(h.min(c)),
        (h, c) => h.or(c),
    };
    match (limit, address_space_room()) {
        (Some(l), Some(a)) => Some(l.min(a)),
        (l, a) => l.or(a),
    }
}

/// Room left under the address-space limit (`ulimit -v`, RLIMIT_AS): the soft limit less
/// what the process has mapped (`VmSize`). `None` when there is no limit.
fn address_space_room() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok();
    let mapped = status.as_deref().and_then(vm_size).unwrap_or(0);
    Some(r.rlim_cur.saturating_sub(mapped))
}

/// Under an address-space limit (`ulimit -v`), let every thread allocate from one arena of the
/// C library's allocator: each further arena reserves 64 MiB of address space, which the limit
/// counts though the memory does not, so that a worker's first allocation could fail where
/// [`available_bytes`] said there was room. Call before starting threads; nothing without a
/// limit.
pub fn one_arena_under_address_limit() {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct it is given.
    let limited = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0
        && r.rlim_cur != libc::RLIM_INFINITY;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if limited {
        // SAFETY: mallopt with a documented parameter, before other threads allocate.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = limited;
}

/// `VmSize` of a /proc/self/status text, in bytes.
fn vm_size(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `MemAvailable` of a /proc/meminfo text, in bytes.
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Room under a cgroup v2 limit: `memory.max` ("max" when unlimited) minus `memory.current`.
fn cgroup_room(max: &str, current: &str) -> Option<u64> {
    let max: u64 = max.trim().parse().ok()?;
    let current: u64 = current.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// [`Error::TooLarge`](crate::Error::TooLarge) when `bytes` is more than [`available_bytes`]:
/// `what` names the job and `hint` says how to shrink it.
pub fn ensure_available(bytes: u64, what: &str, hint: &str) -> crate::Result<()> {
    Room::SYSTEM.ensure(bytes, what, hint)
}

/// The memory a job may count on: what the system says ([`available_bytes`]), or an amount
/// the caller assumes instead (a test that shows the check at work, a host program that keeps
/// memory for itself). Plans take one and check every buffer they will need against it before
/// any work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Room {
    assumed: Option<u64>,
}

impl Room {
    /// What the system says is available.
    pub const SYSTEM: Room = Room { assumed: None };

    /// Assume `bytes` are available, whatever the system says.
    pub fn assume(bytes: u64) -> Room {
        Room {
            assumed: Some(bytes),
        }
    }

    /// Bytes available, if known.
    pub fn available(self) -> Option<u64> {
        self.assumed.or_else(available_bytes)
    }

    /// [`Error::TooLarge`](crate::Error::TooLarge) when `bytes` is more than is available:
    /// `what` names the job and `hint` says how to shrink it.
    pub fn ensure(self, bytes: u64, what: &str, hint: &str) -> crate::Result<()> {
        check_room(bytes, self.available(), what, hint)
    }
}

fn check_room(bytes: u64, available: Option<u64>, what: &str, hint: &str) -> crate::Result<()> {
    match available {
        Some(room) if bytes > room => Err(crate::Error::too_large(
            what,
            format!(
                "it needs {} of memory but only {} is available; {hint}",
                sizes_apart(bytes, room).0,
                sizes_apart(bytes, room).1
            ),
        )),
        _ => Ok(()),
    }
}

/// Bytes in the largest binary unit that keeps a whole part (B, KiB, MiB, GiB), one decimal
/// (for messages only): `330.1 KiB`, `1.0 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b < 1 << 10 => format!("{b} B"),
        b if b < 1 << 20 => format!("{}.{} KiB", b >> 10, ((b & 1023) * 10) >> 10),
        b if b < 1 << 30 => format!("{}.{} MiB", b >> 20, ((b & ((1 << 20) - 1)) * 10) >> 20),
        b => gib(b),
    }
}

/// Two amounts in units that show their difference: [`human_bytes`] when the two read
/// apart, else both in bytes (`2,726,297 B` against `2,726,296 B`, never "2.6 MiB of 2.6 MiB").
pub fn sizes_apart(a: u64, b: u64) -> (String, String) {
    let (x, y) = (human_bytes(a), human_bytes(b));
    if x != y || a == b {
        return (x, y);
    }
    let exact = |n: u64| {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        format!("{out} B")
    };
    (exact(a), exact(b))
}

/// Bytes as GiB with one decimal (for messages only).
pub fn gib(bytes: u64) -> String {
    format!(
        "{}.{} GiB",
        bytes >> 30,
        ((bytes & ((1 << 30) - 1)) * 10) >> 30
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_meminfo_and_cgroup_limits() {
        let text = "MemTotal:       24684084 kB\nMemFree:  1 kB\nMemAvailable:   24085780 kB\n";
        assert_eq!(meminfo_available(text), Some(24085780 * 1024));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
        assert_eq!(cgroup_room("max\n", "100\n"), None);
        assert_eq!(cgroup_room("1000\n", "300\n"), Some(700));
        assert_eq!(cgroup_room("1000\n", "3000\n"), Some(0));
    }

    #[test]
    fn too_large_is_one_clear_error() {
        assert!(check_room(10, Some(10), "x", "y").is_ok());
        assert!(check_room(10, None, "x", "y").is_ok());
        let e = check_room(3 << 30, Some(5 << 29), "ca 7", "use fewer steps").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ca 7 is too large: it needs 3.0 GiB of memory but only 2.5 GiB is available; use fewer steps"
        );
    }
}

/// A size such as `512M`, `6G`, `1T` or `65536` (bytes): an integer and an optional binary
/// suffix K, M, G or T (as sort(1)'s `-S` reads them; `KiB`, `MB` and the like are read the
/// same), at least 1.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let shift = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => return Err(format!("'{s}' is not a size such as 512M or 6G")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a size such as 512M or 6G"))?;
    if n == 0 {
        return Err("must be at least 1".into());
    }
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("'{s}' is larger than 2^64-1 bytes"))
}

#[cfg(test)]
mod size_tests {
    use super::parse_bytes;

    #[test]
    fn sizes_read_as_sort_reads_them() {
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("6G"), Ok(6 << 30));
        assert_eq!(parse_bytes("2m"), Ok(2 << 20));
        assert_eq!(parse_bytes("20MiB"), Ok(20 << 20));
        assert_eq!(parse_bytes("65536"), Ok(65536));
        assert_eq!(parse_bytes("1T"), Ok(1 << 40));
        for bad in ["", "M", "1.5G", "-1G", "3X", "0", "99999999999999T"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }
}
