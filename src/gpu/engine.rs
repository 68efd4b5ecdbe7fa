//! Where work runs: the backend a user chooses ([`BackendChoice`]: `auto`, `gpu`, `cpu`) and
//! the engine it resolves to for a job ([`Engine::for_job`]), which hands out each
//! computation's backend (the WGSL kernel on the shared [`GpuContext`], or its CPU twin).
//! `auto` decides per job ([`super::choice`]): by the rates `bench` saved for this machine,
//! else by the default table; it takes a GPU only when it is a real one (lavapipe runs every
//! kernel, but slower than the CPU paths).
//!
//! Tests: tests/faults/backend.rs, tests/engine/foundation.rs (each kernel against the CPU).

use super::block_count::BlockCountGpu;
use super::ca::CaGpu;
use super::choice::{decide, saved_rates, AdapterView, Job, MachineKey, Side};
use super::context::{GpuContext, SHARED};
use super::nimpass::NimPassGpu;
use super::ptest::PGridGpu;
use crate::chocolate::automaton::Automaton;
use crate::chocolate::backend::{
    AutomatonBackend, BlockCountBackend, BlockCountCpu, PGridBackend, PGridCpu,
};
use crate::error::{Error, Result};
use crate::pass::backend::{NimPassBackend, NimPassCpu};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// Which backend to use: the library's choice, parsed from text with [`std::str::FromStr`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BackendChoice {
    /// Per job, the faster side on this machine: by the rates `bench` saved, else the
    /// default table; never a software adapter.
    #[default]
    Auto,
    /// The GPU, software adapters included; an error if there is none.
    Gpu,
    /// The CPU, always.
    Cpu,
}

impl BackendChoice {
    /// "auto", "gpu" or "cpu".
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Gpu => "gpu",
            BackendChoice::Cpu => "cpu",
        }
    }
}

impl std::str::FromStr for BackendChoice {
    type Err = Error;

    fn from_str(s: &str) -> Result<BackendChoice> {
        match s {
            "auto" => Ok(BackendChoice::Auto),
            "gpu" => Ok(BackendChoice::Gpu),
            "cpu" => Ok(BackendChoice::Cpu),
            _ => Err(Error::bad_argument("the backend", s, "auto, gpu or cpu")),
        }
    }
}

impl std::fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the work runs.
#[derive(Clone)]
pub enum Engine {
    /// The CPU paths (rayon over the cores).
    Cpu,
    /// The WGSL kernels on this device.
    Gpu(Arc<GpuContext>),
}

impl Engine {
    /// The engine for `job`: `cpu` and `gpu` force a side (`gpu` fails without an adapter);
    /// `auto` never fails: the side [`super::choice::decide`] picks on this machine, the CPU
    /// without a real GPU.
    pub fn for_job(choice: BackendChoice, job: Job) -> Result<Engine> {
        if choice != BackendChoice::Auto {
            return Engine::select(choice);
        }
        let Some(ctx) = real_gpu() else {
            return Ok(Engine::Cpu);
        };
        let view = AdapterView::Real(MachineKey::of(&ctx));
        Ok(match decide(job, &view, saved_rates()).side {
            Side::Gpu => Engine::Gpu(ctx),
            Side::Cpu => Engine::Cpu,
        })
    }

    /// Resolve a backend choice for every job at once. `auto` never fails: a real GPU when
    /// there is one, else the CPU; prefer [`Engine::for_job`], which decides per job.
    pub fn select(choice: BackendChoice) -> Result<Engine> {
        match choice {
            BackendChoice::Cpu => Ok(Engine::Cpu),
            BackendChoice::Gpu => Ok(Engine::Gpu(GpuContext::shared()?)),
            BackendChoice::Auto => {
                // Look at the adapters before opening a device: a software adapter is never
                // used by `auto`, so the device (and its memory) is not worth creating.
                if !real_adapter_present() {
                    return Ok(Engine::Cpu);
                }
                match GpuContext::shared() {
                    Ok(ctx) if !ctx.is_software() => Ok(Engine::Gpu(ctx)),
                    _ => Ok(Engine::Cpu),
                }
            }
        }
    }

    /// "cpu" or "gpu".
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Cpu => "cpu",
            Engine::Gpu(_) => "gpu",
        }
    }

    /// The P-grid generator and counter of this backend. Keep it for all the windows to come:
    /// the GPU's pools its buffers.
    pub fn p_grid(&self) -> Arc<dyn PGridBackend> {
        match self {
            Engine::Cpu => Arc::new(PGridCpu),
            Engine::Gpu(ctx) => Arc::new(PGridGpu::new(ctx.clone())),
        }
    }

    /// The digit method's block counts of fitted pictures on this backend (keep it, as
    /// [`Engine::p_grid`]).
    pub fn block_counts(&self) -> Arc<dyn BlockCountBackend> {
        match self {
            Engine::Cpu => Arc::new(BlockCountCpu),
            Engine::Gpu(ctx) => Arc::new(BlockCountGpu::new(ctx.clone())),
        }
    }

    /// Four-heap Nim with a pass on this backend (keep it, as [`Engine::p_grid`]).
    pub fn nim_pass(&self) -> Arc<dyn NimPassBackend> {
        match self {
            Engine::Cpu => Arc::new(NimPassCpu),
            Engine::Gpu(ctx) => Arc::new(NimPassGpu::new(ctx.clone())),
        }
    }

    /// The engine for Nim with a pass on `k` heaps: for four heaps the one `choice` selects
    /// (the GPU's kernel, or the CPU); other heap counts run on the CPU — the GPU has a
    /// four-heap kernel only, so `gpu` is refused for them before any work.
    pub fn for_nim_pass(choice: BackendChoice, k: usize) -> Result<Engine> {
        if k == 4 {
            return Engine::for_job(choice, Job::NimPass);
        }
        if choice == BackendChoice::Gpu {
            return Err(Error::conflict(
                &[crate::Input::Backend],
                format!("the GPU computes four heaps only; use {{0}} cpu or auto for {k} heaps"),
            ));
        }
        Ok(Engine::Cpu)
    }

    /// Nim with a pass on `k` heaps of sizes 0..=max: four heaps on this engine's
    /// [`Engine::nim_pass`], other heap counts by the line method on the CPU.
    pub fn nim_pass_table(&self, k: usize, max: u64) -> Result<crate::pass::nimpass::NimPass> {
        use crate::pass::nimpass::NimPass;
        let side = usize::try_from(max)
            .ok()
            .and_then(|m| m.checked_add(1))
            .ok_or_else(|| NimPass::heaps_too_large(max))?;
        match k {
            4 => self.nim_pass().four_heaps(side),
            _ => NimPass::compute(k, side),
        }
    }

    /// The automaton for generations 0..=capacity on this backend, at b_0; on the GPU with the
    /// device's fastest kernel ([`super::ca::CaKernel::best`]).
    pub fn automaton(&self, capacity: u64) -> Result<Box<dyn AutomatonBackend>> {
        Ok(match self {
            Engine::Cpu => Box::new(Automaton::new(capacity)?),
            Engine::Gpu(ctx) => Box::new(CaGpu::new(ctx.clone(), capacity)?),
        })
    }
}

/// The shared context when it is a real GPU (looked for without opening a device first).
fn real_gpu() -> Option<Arc<GpuContext>> {
    if !real_adapter_present() {
        return None;
    }
    GpuContext::shared().ok().filter(|ctx| !ctx.is_software())
}

/// The adapter as `auto` sees it, for `info`: none, software, or real with its rates' key.
pub fn adapter_view(ctx: Option<&GpuContext>) -> AdapterView {
    match ctx {
        None => AdapterView::None,
        Some(ctx) if ctx.is_software() => AdapterView::Software,
        Some(ctx) => AdapterView::Real(MachineKey::of(ctx)),
    }
}

/// Whether any adapter is a real GPU (not `DeviceType::Cpu`), found without opening a device.
/// Remembered for the process.
pub fn real_adapter_present() -> bool {
    static REAL: OnceLock<bool> = OnceLock::new();
    *REAL.get_or_init(|| {
        if let Some(Ok(ctx)) = SHARED.get() {
            return !ctx.is_software();
        }
        if !gpu_device_nodes_present() {
            return false;
        }
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
            .iter()
            .any(|a| a.get_info().device_type != wgpu::DeviceType::Cpu)
    })
}

/// Whether this machine has a device node through which a hardware GPU could be reached.
///
/// On Linux every hardware adapter is opened through one: DRM nodes (`/dev/dri`, used by Mesa's
/// drivers and virtual GPUs), the NVIDIA driver's `/dev/nvidiactl`, or WSL's `/dev/dxg`. With
/// none of them no real adapter can exist, so `auto` need not load the Vulkan drivers at all —
/// the loader maps every installed driver just to list adapters, about 60 MB of resident
/// memory and a tenth of a second on a machine with Mesa's software and hardware drivers.
/// Elsewhere the answer is always "maybe".
fn gpu_device_nodes_present() -> bool {
    if cfg!(target_os = "linux") {
        let dri = std::fs::read_dir("/dev/dri").is_ok_and(|mut d| d.next().is_some());
        dri || ["/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg"]
            .iter()
            .any(|p| std::path::Path::new(p).exists())
    } else {
        true
    }
}

/// The GPU `count`'s method `all` may add for a backend choice: none with `cpu` or without an
/// adapter; a software adapter (lavapipe, far slower than the CPU row) only when `gpu` asks for
/// it; with `auto`, a real GPU when `auto` gives it the count ([`Job::Count`]).
pub fn count_gpu(backend: BackendChoice) -> crate::chocolate::count::CountGpu {
    use crate::chocolate::count::CountGpu;
    match backend {
        BackendChoice::Cpu => return CountGpu::None,
        BackendChoice::Auto => {
            return match Engine::for_job(backend, Job::Count) {
                Ok(Engine::Gpu(_)) => CountGpu::Real,
                _ => CountGpu::None,
            }
        }
        BackendChoice::Gpu => {}
    }
    match GpuContext::shared() {
        Ok(ctx) if ctx.is_software() && backend == BackendChoice::Gpu => CountGpu::Software,
        Ok(ctx) if ctx.is_software() => CountGpu::None,
        Ok(_) => CountGpu::Real,
        Err(_) => CountGpu::None,
    }
}
