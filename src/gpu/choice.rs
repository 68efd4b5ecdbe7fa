//! What `auto` picks for each job: the CPU or the GPU, from rates measured on this machine's
//! adapter and CPU where they were saved, else from a default table, and never a software
//! adapter. FFTW's wisdom is the model: `bench` measures, saves the rates in the user's cache
//! directory keyed by the adapter's name, its driver and the CPU count, and every later run
//! that finds rates for its own machine decides by them.
//!
//! The rates file (docs/formats.md, "The rates file") is one JSON object holding the rates of
//! every machine saved from this cache directory. A file that cannot be read as one, or that
//! is not a chompute rates file of this version, is ignored with a one-line warning on
//! standard error (once a process), and `auto` uses the default table; it never fails a
//! command.
//!
//! Tests: this file's unit tests; tests/faults/backend.rs (the rates file through the binary).

use super::context::GpuContext;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A kind of work `auto` decides for on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Job {
    /// A picture cell for cell (`render`, `serve`): P-grid rows into the PNG encoder.
    Render,
    /// P-grid rows into memory (`grid`, Python's `p_grid`).
    Generate,
    /// Counting P-positions of a window (`count`).
    Count,
    /// A fitted picture's block counts (the digit method).
    Fit,
    /// The second-order automaton (`ca`).
    Automaton,
    /// Four-heap Nim with a pass (`nimpass`).
    #[serde(rename = "nimpass")]
    NimPass,
    /// Two-player Chomp tables (`chomp solve`).
    Chomp,
}

/// The CPU or the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The CPU paths.
    Cpu,
    /// The WGSL kernels.
    Gpu,
}

impl Side {
    /// "cpu" or "gpu".
    pub fn name(self) -> &'static str {
        match self {
            Side::Cpu => "cpu",
            Side::Gpu => "gpu",
        }
    }
}

impl Job {
    /// Every job, in the order `info` lists them.
    pub const ALL: [Job; 7] = [
        Job::Render,
        Job::Generate,
        Job::Count,
        Job::Fit,
        Job::Automaton,
        Job::NimPass,
        Job::Chomp,
    ];

    /// The job's name in `info` and in the rates file.
    pub fn name(self) -> &'static str {
        match self {
            Job::Render => "render",
            Job::Generate => "generate",
            Job::Count => "count",
            Job::Fit => "fit",
            Job::Automaton => "automaton",
            Job::NimPass => "nimpass",
            Job::Chomp => "chomp",
        }
    }

    /// The side the default table gives the job on a real GPU, from one NVIDIA H200 against
    /// its 16 CPU cores (BENCHMARKS.md, 2026-12-04): the GPU was 0.27× the CPU at 1-bit render,
    /// 0.10× at generation, 0.07× at the block counts of C(2^64-1), and 6.6× at counts, 7.9× at
    /// Nim with a pass, about 35× at the automaton. Chomp's layer kernel (1.5× the CPU's
    /// volume layers there) lost to the CPU's forward solver (3.5× faster still), so the CPU.
    pub fn default_side(self) -> Side {
        match self {
            Job::Render | Job::Generate | Job::Fit | Job::Chomp => Side::Cpu,
            Job::Count | Job::Automaton | Job::NimPass => Side::Gpu,
        }
    }

    /// The `bench` rows that measure the job: the CPU's kernel name, the GPU's, and the start
    /// of the size both rows share where the kernel has several sizes.
    pub fn bench_rows(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Job::Render => ("render png fast", "render png fast", ""),
            Job::Generate => ("p-grid generate", "p-grid generate", ""),
            Job::Count => ("p-grid count", "p-grid count", ""),
            Job::Fit => ("block counts", "block counts", "C(2^64-1)"),
            Job::Automaton => ("ca steps", "ca steps", ""),
            Job::NimPass => ("nim with a pass K=4", "nim with a pass K=4", ""),
            Job::Chomp => ("chomp solve", "chomp solve volume layers", ""),
        }
    }
}

impl std::fmt::Display for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What rates are keyed by: the adapter's name and driver, and the CPUs this process may use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineKey {
    /// The adapter's name, as the driver gives it.
    pub adapter: String,
    /// The driver's name and version text.
    pub driver: String,
    /// CPUs available to this process.
    pub cpus: usize,
}

impl MachineKey {
    /// The key of this process on `ctx`'s adapter.
    pub fn of(ctx: &GpuContext) -> MachineKey {
        MachineKey {
            adapter: ctx.info.name.clone(),
            driver: format!("{} {}", ctx.info.driver, ctx.info.driver_info)
                .trim()
                .to_string(),
            cpus: cpus(),
        }
    }
}

/// CPUs available to this process (what the CPU paths' thread pool uses).
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One job's measured rates, in the unit of its `bench` rows, per second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct JobRates {
    /// The CPU's rate.
    pub cpu: f64,
    /// The GPU's rate.
    pub gpu: f64,
}

/// The rates of one machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineRates {
    /// Whose rates these are.
    #[serde(flatten)]
    pub key: MachineKey,
    /// When `bench` measured them (UTC, seconds since 1970).
    pub measured_at: u64,
    /// The rates by job name.
    pub jobs: BTreeMap<String, JobRates>,
    /// The automaton's GPU kernels by family (`step`, `block`, `regs`): cell updates per
    /// second on the last quarter of `bench`'s run, which `ca --kernel auto` picks from.
    /// Absent in files saved before kernels were measured.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kernels: BTreeMap<String, f64>,
}

/// The whole rates file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatesFile {
    /// Always [`RATES_FORMAT`].
    pub format: String,
    /// Always [`RATES_VERSION`].
    pub version: u32,
    /// One entry per machine key.
    pub machines: Vec<MachineRates>,
}

/// The `format` field of a rates file.
pub const RATES_FORMAT: &str = "chompute-rates";
/// The version of the rates file this build reads and writes.
pub const RATES_VERSION: u32 = 1;

impl RatesFile {
    /// An empty file.
    pub fn new() -> RatesFile {
        RatesFile {
            format: RATES_FORMAT.into(),
            version: RATES_VERSION,
            machines: Vec::new(),
        }
    }

    /// Parse a rates file; the error says in a few words why it is not one.
    pub fn parse(text: &str) -> std::result::Result<RatesFile, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(RATES_FORMAT) {
            return Err("not a chompute rates file".into());
        }
        let file: RatesFile =
            serde_json::from_value(value).map_err(|e| format!("malformed ({e})"))?;
        if file.version != RATES_VERSION {
            return Err(format!(
                "version {} (this chompute reads version {RATES_VERSION})",
                file.version
            ));
        }
        let bad = file
            .machines
            .iter()
            .flat_map(|m| m.jobs.iter())
            .find(|(_, r)| !(r.cpu.is_finite() && r.gpu.is_finite() && r.cpu > 0.0 && r.gpu > 0.0));
        if let Some((job, _)) = bad {
            return Err(format!("the rates of {job} are not positive numbers"));
        }
        let bad = file
            .machines
            .iter()
            .flat_map(|m| m.kernels.iter())
            .find(|(_, r)| !(r.is_finite() && **r > 0.0));
        if let Some((kernel, _)) = bad {
            return Err(format!(
                "the rate of the {kernel} kernel is not a positive number"
            ));
        }
        Ok(file)
    }

    /// The rates saved for `key`, if any.
    pub fn machine(&self, key: &MachineKey) -> Option<&MachineRates> {
        self.machines.iter().find(|m| &m.key == key)
    }

    /// Put `rates` in, replacing the entry of the same machine.
    pub fn insert(&mut self, rates: MachineRates) {
        self.machines.retain(|m| m.key != rates.key);
        self.machines.push(rates);
    }
}

impl Default for RatesFile {
    fn default() -> Self {
        RatesFile::new()
    }
}

/// Why `auto` picks what it picks for a job.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Reason {
    /// Rates measured on this machine: the faster side.
    Measured {
        /// The CPU's rate.
        cpu: f64,
        /// The GPU's rate.
        gpu: f64,
    },
    /// No rates saved for this machine: the default table.
    Default,
    /// No GPU adapter: the CPU.
    NoAdapter,
    /// The adapter runs on the CPU (lavapipe, llvmpipe, WARP): the CPU paths, always faster.
    SoftwareAdapter,
}

impl Reason {
    /// The reason in a few words, for `info`.
    pub fn describe(&self) -> String {
        match self {
            Reason::Measured { cpu, gpu } => {
                format!("measured rate (cpu {cpu:.3e}/s, gpu {gpu:.3e}/s)")
            }
            Reason::Default => "default table".into(),
            Reason::NoAdapter => "no adapter".into(),
            Reason::SoftwareAdapter => "software adapter".into(),
        }
    }
}

/// What `auto` picks for one job, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// The job.
    pub job: Job,
    /// The side `auto` runs it on.
    pub side: Side,
    /// Why.
    #[serde(flatten)]
    pub reason: Reason,
}

/// The adapter as `auto` sees it: none, a software one, or a real one with its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterView {
    /// No adapter.
    None,
    /// A software adapter.
    Software,
    /// A real GPU, and the key its rates are saved under.
    Real(MachineKey),
}

/// The decision for `job` on `adapter`, with `saved` the rates file (if one was read).
pub fn decide(job: Job, adapter: &AdapterView, saved: Option<&RatesFile>) -> Decision {
    let (side, reason) = match adapter {
        AdapterView::None => (Side::Cpu, Reason::NoAdapter),
        AdapterView::Software => (Side::Cpu, Reason::SoftwareAdapter),
        AdapterView::Real(key) => {
            let rates = saved
                .and_then(|f| f.machine(key))
                .and_then(|m| m.jobs.get(job.name()));
            match rates {
                Some(r) => {
                    let side = if r.gpu > r.cpu { Side::Gpu } else { Side::Cpu };
                    (
                        side,
                        Reason::Measured {
                            cpu: r.cpu,
                            gpu: r.gpu,
                        },
                    )
                }
                None => (job.default_side(), Reason::Default),
            }
        }
    };
    Decision { job, side, reason }
}

/// Every job's decision.
pub fn decide_all(adapter: &AdapterView, saved: Option<&RatesFile>) -> Vec<Decision> {
    Job::ALL
        .iter()
        .map(|&job| decide(job, adapter, saved))
        .collect()
}

/// Why `ca --kernel auto` steps the automaton with the kernel it picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KernelReason {
    /// The fastest of the kernels this device runs whose rates `bench --save` measured here.
    Measured,
    /// No kernel this device runs was measured here: the rule (the register kernel on a real
    /// GPU with subgroups, else the step kernel).
    Rule,
}

/// The fastest of `runs` (kernel families this device runs) by the kernel rates saved for
/// `key` in `saved`; `None` when none of them was measured there. A tie goes to the earlier.
pub fn fastest_kernel<'a>(
    runs: &[&'a str],
    key: &MachineKey,
    saved: Option<&RatesFile>,
) -> Option<&'a str> {
    let rates = &saved?.machine(key)?.kernels;
    let mut best: Option<(&str, f64)> = None;
    for &k in runs {
        if let Some(&r) = rates.get(k) {
            if best.is_none_or(|(_, b)| r > b) {
                best = Some((k, r));
            }
        }
    }
    best.map(|(k, _)| k)
}

/// Where the rates file lives: `$XDG_CACHE_HOME/chompute/rates.json`, else
/// `$HOME/.cache/chompute/rates.json`; `None` with neither set. A relative `XDG_CACHE_HOME`
/// is ignored, as the XDG base directory specification asks, so the file never moves with
/// the working directory.
pub fn rates_path() -> Option<PathBuf> {
    let nonempty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty());
    let xdg = nonempty("XDG_CACHE_HOME").filter(|d| Path::new(d).is_absolute());
    let base = match xdg {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(nonempty("HOME")?).join(".cache"),
    };
    Some(base.join("chompute").join("rates.json"))
}

/// Read the rates file at `path`: `Ok(None)` when there is none, `Err` with the one-line
/// warning when there is one that cannot be used.
pub fn read_rates(path: &Path) -> std::result::Result<Option<RatesFile>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read it ({e})")),
    };
    RatesFile::parse(&text).map(Some)
}

/// The warning said when the rates file at `path` is ignored.
fn warning(path: &Path, why: &str) -> String {
    format!(
        "chompute: warning: ignoring the rates file {}: {why}; auto uses its default table",
        path.display()
    )
}

/// The rates file of this process, read once; an unusable one is ignored, and said so once on
/// standard error.
pub fn saved_rates() -> Option<&'static RatesFile> {
    static SAVED: OnceLock<Option<RatesFile>> = OnceLock::new();
    SAVED
        .get_or_init(|| {
            let path = rates_path()?;
            match read_rates(&path) {
                Ok(file) => file,
                Err(why) => {
                    // A standard error that cannot be written loses the warning, not the run.
                    use std::io::Write;
                    let _ = writeln!(std::io::stderr(), "{}", warning(&path, &why));
                    None
                }
            }
        })
        .as_ref()
}

/// Check, before `bench --save` measures anything, that the rates file at `path` could be
/// saved: its folder exists or can be made, and where it exists, the file is one that can
/// be replaced. Nothing is created.
pub fn check_rates_target(path: &Path) -> crate::Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(crate::Error::Invalid(format!(
            "the rates file {} is a directory",
            path.display()
        )));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::output::check_dir_target(dir, true)?;
    if dir.is_dir() {
        crate::output::check_target(path)?;
    }
    Ok(())
}

/// Save `rates` into the rates file at `path` (made with its folder if missing), keeping the
/// other machines' entries of a usable file; written under a temporary name and renamed.
pub fn save_rates(path: &Path, rates: MachineRates) -> crate::Result<()> {
    let mut file = read_rates(path).ok().flatten().unwrap_or_default();
    file.insert(rates);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| crate::Error::io(dir, e))?;
    }
    let mut text = serde_json::to_string_pretty(&file)
        .map_err(|e| crate::Error::Invalid(format!("the rates file: {e}")))?;
    text.push('\n');
    let mut out = crate::output::AtomicFile::create(path)?;
    std::io::Write::write_all(&mut out, text.as_bytes()).map_err(|e| crate::Error::io(path, e))?;
    out.commit()
}

/// Seconds since 1970, for [`MachineRates::measured_at`].
pub fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200() -> MachineKey {
        MachineKey {
            adapter: "NVIDIA H200".into(),
            driver: "NVIDIA 580.159.04".into(),
            cpus: 16,
        }
    }

    #[test]
    fn the_default_table_on_a_real_adapter() {
        let d = decide_all(&AdapterView::Real(h200()), None);
        let side = |job: Job| d.iter().find(|d| d.job == job).unwrap().side;
        assert_eq!(side(Job::Render), Side::Cpu);
        assert_eq!(side(Job::Generate), Side::Cpu);
        assert_eq!(side(Job::Fit), Side::Cpu);
        assert_eq!(side(Job::Count), Side::Gpu);
        assert_eq!(side(Job::Automaton), Side::Gpu);
        assert_eq!(side(Job::NimPass), Side::Gpu);
        assert!(d.iter().all(|d| d.reason == Reason::Default));
        assert_eq!(d.len(), Job::ALL.len());
    }

    #[test]
    fn recorded_rates_decide_for_their_machine_only() {
        let mut file = RatesFile::new();
        let mut jobs = BTreeMap::new();
        // Render measured faster on the GPU, count slower: the opposite of the defaults.
        jobs.insert("render".into(), JobRates { cpu: 1e9, gpu: 3e9 });
        jobs.insert(
            "count".into(),
            JobRates {
                cpu: 5e10,
                gpu: 2e10,
            },
        );
        file.insert(MachineRates {
            key: h200(),
            measured_at: 1,
            jobs,
            kernels: BTreeMap::new(),
        });
        let text = serde_json::to_string(&file).unwrap();
        let file = RatesFile::parse(&text).unwrap();
        let real = AdapterView::Real(h200());
        let render = decide(Job::Render, &real, Some(&file));
        assert_eq!(render.side, Side::Gpu);
        assert_eq!(render.reason, Reason::Measured { cpu: 1e9, gpu: 3e9 });
        assert_eq!(decide(Job::Count, &real, Some(&file)).side, Side::Cpu);
        // A job the file has no rate for: the default table.
        let fit = decide(Job::Fit, &real, Some(&file));
        assert_eq!((fit.side, fit.reason), (Side::Cpu, Reason::Default));
        // Another machine (other CPU count): the default table for every job.
        let other = AdapterView::Real(MachineKey { cpus: 8, ..h200() });
        assert_eq!(decide(Job::Render, &other, Some(&file)).side, Side::Cpu);
        assert_eq!(decide(Job::Count, &other, Some(&file)).side, Side::Gpu);
        // Software adapters and no adapter: the CPU, whatever the rates.
        for view in [AdapterView::Software, AdapterView::None] {
            assert!(decide_all(&view, Some(&file))
                .iter()
                .all(|d| d.side == Side::Cpu));
        }
    }

    #[test]
    fn the_automaton_kernel_is_the_fastest_measured_one_the_device_runs() {
        // A file saved before kernels were measured reads, with none.
        let text = r#"{"format": "chompute-rates", "version": 1, "machines": [{"adapter":
            "NVIDIA H200", "driver": "NVIDIA 580.159.04", "cpus": 16, "measured_at": 0,
            "jobs": {}}]}"#;
        let old = RatesFile::parse(text).unwrap();
        assert!(old.machines[0].kernels.is_empty());
        let all = ["step", "block", "regs"];
        assert_eq!(fastest_kernel(&all, &h200(), Some(&old)), None);
        let mut file = RatesFile::new();
        file.insert(MachineRates {
            key: h200(),
            measured_at: 1,
            jobs: BTreeMap::new(),
            // The H200's step and block kernels (BENCHMARKS.md, 2026-12-04), and a register
            // kernel slower than the step kernel, as a device might measure it.
            kernels: [
                ("step".to_string(), 7.93e12),
                ("block".to_string(), 6.35e12),
                ("regs".to_string(), 5.0e12),
            ]
            .into(),
        });
        let file = RatesFile::parse(&serde_json::to_string(&file).unwrap()).unwrap();
        // The measured rates decide, not the rule's preference for the register kernel.
        assert_eq!(fastest_kernel(&all, &h200(), Some(&file)), Some("step"));
        // Only what the device runs: without the step kernel, the faster of the others.
        assert_eq!(
            fastest_kernel(&["block", "regs"], &h200(), Some(&file)),
            Some("block")
        );
        // A kernel the device runs but that was not measured is not picked by rates.
        assert_eq!(fastest_kernel(&["other"], &h200(), Some(&file)), None);
        // Another machine's rates, or none: the rule.
        let other = MachineKey { cpus: 8, ..h200() };
        assert_eq!(fastest_kernel(&all, &other, Some(&file)), None);
        assert_eq!(fastest_kernel(&all, &h200(), None), None);
    }

    #[test]
    fn unusable_rates_files_are_refused_with_a_reason() {
        for (text, why) in [
            ("{", "not JSON"),
            ("[1, 2]", "not a chompute rates file"),
            (r#"{"format": "fftw-wisdom"}"#, "not a chompute rates file"),
            (r#"{"format": "chompute-rates", "version": 1}"#, "malformed"),
            (
                r#"{"format": "chompute-rates", "version": 9, "machines": []}"#,
                "version 9",
            ),
            (
                r#"{"format": "chompute-rates", "version": 1, "machines": [{"adapter": "a",
                "driver": "d", "cpus": 2, "measured_at": 0, "jobs": {"count": {"cpu": -1, "gpu": 2}}}]}"#,
                "not positive",
            ),
            (
                r#"{"format": "chompute-rates", "version": 1, "machines": [{"adapter": "a",
                "driver": "d", "cpus": 2, "measured_at": 0, "jobs": {}, "kernels": {"regs": 0}}]}"#,
                "regs kernel is not a positive",
            ),
        ] {
            let e = RatesFile::parse(text).unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn saving_keeps_other_machines_and_replaces_its_own() {
        let dir = std::env::temp_dir().join(format!("chompute-rates-{}", std::process::id()));
        let path = dir.join("sub").join("rates.json");
        let rates = |cpus: usize, cpu: f64| MachineRates {
            key: MachineKey { cpus, ..h200() },
            measured_at: 7,
            jobs: [("render".to_string(), JobRates { cpu, gpu: 1.0 })].into(),
            kernels: BTreeMap::new(),
        };
        save_rates(&path, rates(16, 2.0)).unwrap();
        save_rates(&path, rates(8, 3.0)).unwrap();
        save_rates(&path, rates(16, 4.0)).unwrap();
        let file = read_rates(&path).unwrap().unwrap();
        assert_eq!(file.machines.len(), 2);
        assert_eq!(file.machine(&h200()).unwrap().jobs["render"].cpu, 4.0);
        // A corrupt file is replaced by a save, not merged.
        std::fs::write(&path, "garbage").unwrap();
        assert!(read_rates(&path).is_err());
        save_rates(&path, rates(8, 5.0)).unwrap();
        assert_eq!(read_rates(&path).unwrap().unwrap().machines.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
