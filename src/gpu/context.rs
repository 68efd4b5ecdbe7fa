//! One reusable GPU context: adapter, device with the adapter's own limits, and a cache of
//! compute pipelines built once each.

use anyhow::{anyhow, bail, Context as _};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The `--backend` choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// The GPU when it is a real one (not a software rasteriser), else the CPU.
    #[default]
    Auto,
    /// The GPU, software adapters included; an error if there is none.
    Gpu,
    /// The CPU, always.
    Cpu,
}

/// Where the work runs.
#[derive(Clone)]
pub enum Engine {
    Cpu,
    Gpu(Arc<GpuContext>),
}

impl Engine {
    /// Resolve a `--backend` choice. `auto` never fails: without a real GPU it is the CPU.
    pub fn select(choice: BackendChoice) -> anyhow::Result<Engine> {
        match choice {
            BackendChoice::Cpu => Ok(Engine::Cpu),
            BackendChoice::Gpu => Ok(Engine::Gpu(
                GpuContext::shared().map_err(|e| anyhow!("{e}"))?,
            )),
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

/// Facts about the adapter in use, for `info` and for benchmark reports.
#[derive(Debug, Clone, Serialize)]
pub struct AdapterReport {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    pub software: bool,
    pub max_storage_buffer_binding_size: u64,
    pub max_buffer_size: u64,
    pub max_compute_workgroups_per_dimension: u32,
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroup_storage_size: u32,
}

/// A device and queue plus the pipelines built on them.
pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pipelines: Mutex<HashMap<String, wgpu::ComputePipeline>>,
}

static SHARED: OnceLock<Result<Arc<GpuContext>, String>> = OnceLock::new();

impl GpuContext {
    /// The process-wide context, created on first use. The error says why there is none.
    pub fn shared() -> Result<Arc<GpuContext>, String> {
        SHARED
            .get_or_init(|| {
                GpuContext::new()
                    .map(Arc::new)
                    .map_err(|e| format!("{e:#}"))
            })
            .clone()
    }

    /// Find an adapter and open a device with the adapter's own limits.
    pub fn new() -> anyhow::Result<GpuContext> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| {
            anyhow!("no GPU adapter found ({e}); install a Vulkan driver (e.g. apt-get install mesa-vulkan-drivers libvulkan1) or use --backend cpu")
        })?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("chompute"),
            required_features: wgpu::Features::empty(),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .with_context(|| format!("cannot open the GPU device '{}'", info.name))?;
        Ok(GpuContext {
            device,
            queue,
            info,
            limits,
            pipelines: Mutex::new(HashMap::new()),
        })
    }

    /// A CPU (software) adapter such as lavapipe or llvmpipe.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    pub fn report(&self) -> AdapterReport {
        AdapterReport {
            name: self.info.name.clone(),
            backend: format!("{:?}", self.info.backend).to_lowercase(),
            device_type: format!("{:?}", self.info.device_type),
            driver: self.info.driver.clone(),
            driver_info: self.info.driver_info.clone(),
            software: self.is_software(),
            max_storage_buffer_binding_size: self.limits.max_storage_buffer_binding_size,
            max_buffer_size: self.limits.max_buffer_size,
            max_compute_workgroups_per_dimension: self.limits.max_compute_workgroups_per_dimension,
            max_compute_invocations_per_workgroup: self
                .limits
                .max_compute_invocations_per_workgroup,
            max_compute_workgroup_storage_size: self.limits.max_compute_workgroup_storage_size,
        }
    }

    /// The most bytes one storage binding may hold on this device, capped at 256 MiB so that
    /// a tile's P-count (≤ 2^31 bits) fits the kernels' u32 counters.
    pub fn max_binding_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
            .min(256 << 20)
    }

    /// Build (once) and return the compute pipeline `key` from WGSL `source`, entry point
    /// `entry`, with an automatic layout. Shader errors are caught by an error scope.
    pub fn pipeline(
        &self,
        key: &str,
        source: &str,
        entry: &str,
    ) -> anyhow::Result<wgpu::ComputePipeline> {
        self.cached_pipeline(
            key,
            source,
            entry,
            &[],
            None::<fn(&wgpu::Device) -> wgpu::PipelineLayout>,
        )
    }

    /// As [`GpuContext::pipeline`], with an explicit pipeline layout made by `layout` (for
    /// kernels that need dynamic uniform offsets). `layout` runs only when the pipeline is
    /// first built; read the bind group layout back with `get_bind_group_layout`.
    pub fn pipeline_with_layout(
        &self,
        key: &str,
        source: &str,
        entry: &str,
        constants: &[(&str, f64)],
        layout: impl FnOnce(&wgpu::Device) -> wgpu::PipelineLayout,
    ) -> anyhow::Result<wgpu::ComputePipeline> {
        self.cached_pipeline(key, source, entry, constants, Some(layout))
    }

    fn cached_pipeline(
        &self,
        key: &str,
        source: &str,
        entry: &str,
        constants: &[(&str, f64)],
        layout: Option<impl FnOnce(&wgpu::Device) -> wgpu::PipelineLayout>,
    ) -> anyhow::Result<wgpu::ComputePipeline> {
        let mut cache = self
            .pipelines
            .lock()
            .map_err(|_| anyhow!("GPU pipeline cache poisoned"))?;
        if let Some(p) = cache.get(key) {
            return Ok(p.clone());
        }
        let pipeline = self.checked(|| {
            let layout = layout.map(|make| make(&self.device));
            let module = self
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(key),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                });
            self.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(key),
                    layout: layout.as_ref(),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants,
                        ..Default::default()
                    },
                    cache: None,
                })
        })?;
        cache.insert(key.to_string(), pipeline.clone());
        Ok(pipeline)
    }

    /// The bind group of a kernel whose binding 0 is its params uniform (`params`, the bytes
    /// of a `#[repr(C)]` Pod struct) and whose bindings 1, 2, … are `buffers` in order.
    pub fn bind_params(
        &self,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        params: &[u8],
        buffers: &[wgpu::BindingResource<'_>],
    ) -> wgpu::BindGroup {
        use wgpu::util::DeviceExt;
        let uniform = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: params,
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }];
        entries.extend(
            buffers
                .iter()
                .enumerate()
                .map(|(k, r)| wgpu::BindGroupEntry {
                    binding: k as u32 + 1,
                    resource: r.clone(),
                }),
        );
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// Run `f` inside validation and out-of-memory error scopes, turning a captured error
    /// into an `Err` instead of a panic.
    pub fn checked<T>(&self, f: impl FnOnce() -> T) -> anyhow::Result<T> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        if let Some(e) = v.or(o) {
            bail!("GPU error: {e}");
        }
        Ok(value)
    }

    /// Block until all submitted work is done.
    pub fn wait(&self) -> anyhow::Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| anyhow!("GPU poll failed: {e}"))?;
        Ok(())
    }

    /// Copy `bytes` bytes of `src` (from offset 0) back to the host and hand them to `read`.
    pub fn read_back<T>(
        &self,
        src: &wgpu::Buffer,
        bytes: u64,
        read: impl FnOnce(&[u8]) -> T,
    ) -> anyhow::Result<T> {
        let staging = self.checked(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(src, 0, &staging, 0, bytes);
        self.queue.submit([enc.finish()]);
        self.map_and_read(&staging, read)
    }

    /// Map a MAP_READ buffer, wait, and read it.
    pub fn map_and_read<T>(
        &self,
        staging: &wgpu::Buffer,
        read: impl FnOnce(&[u8]) -> T,
    ) -> anyhow::Result<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|_| anyhow!("GPU readback was dropped"))?
            .map_err(|e| anyhow!("GPU readback failed: {e}"))?;
        let value = {
            let view = staging
                .slice(..)
                .get_mapped_range()
                .map_err(|e| anyhow!("GPU readback failed: {e}"))?;
            read(&view)
        };
        staging.unmap();
        Ok(value)
    }
}

/// Record one compute pass that dispatches `pipeline` over `groups` (x, y) with `bind` as
/// group 0.
pub fn dispatch(
    enc: &mut wgpu::CommandEncoder,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    (gx, gy): (u32, u32),
) {
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: None,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind, &[]);
    pass.dispatch_workgroups(gx, gy, 1);
}

/// Split `groups` workgroups into a 2-D dispatch within the per-dimension limit.
/// Returns (x, y) with x·y ≥ groups; kernels rebuild the linear index from x.
pub fn dispatch_2d(groups: u32, max_per_dim: u32) -> (u32, u32) {
    let x = groups.clamp(1, max_per_dim);
    (x, groups.div_ceil(x).max(1))
}
