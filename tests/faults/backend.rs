//! Choosing the backend: `--backend` wins over CHOMPUTE_BACKEND, an empty variable means
//! the default, and `--backend gpu` without an adapter fails for a command with a GPU kernel
//! while a command without one says it runs on the CPU.

use super::harness::*;
use std::time::Duration;

fn with_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut c = command(args);
    for (k, v) in env {
        c.env(k, v);
    }
    run_for(c, Duration::from_secs(60))
}

/// No Vulkan driver at all, whatever is installed: the loader reads only these files.
const NO_ADAPTER: &[(&str, &str)] = &[
    ("VK_ICD_FILENAMES", "/nonexistent/chompute-no-driver.json"),
    ("VK_DRIVER_FILES", "/nonexistent/chompute-no-driver.json"),
];

#[test]
fn the_flag_wins_over_the_environment_and_an_empty_variable_is_the_default() {
    let r = with_env(
        &["--backend", "cpu", "count", "5"],
        &[("CHOMPUTE_BACKEND", "bogus")],
    );
    r.assert_success();
    assert_eq!(String::from_utf8_lossy(&r.stdout).trim(), "9");
    let r = with_env(&["count", "5"], &[("CHOMPUTE_BACKEND", "")]);
    r.assert_success();
    assert_eq!(String::from_utf8_lossy(&r.stdout).trim(), "9");
    let r = with_env(&["count", "5"], &[("CHOMPUTE_BACKEND", "cpu")]);
    r.assert_success();
    // A bad value in effect is an error.
    with_env(&["count", "5"], &[("CHOMPUTE_BACKEND", "bogus")]).assert_error("CHOMPUTE_BACKEND");
    // The help no longer fails on the variable either.
    with_env(&["--help"], &[("CHOMPUTE_BACKEND", "bogus")]).assert_success();
}

#[test]
fn without_an_adapter_gpu_kernels_fail_and_cpu_only_commands_say_so() {
    let dir = scratch("no-adapter");
    let mut env = NO_ADAPTER.to_vec();
    let info = with_env(&["info", "--json"], &env);
    info.assert_success();
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert!(
        v["adapter"].is_null(),
        "the driver files should hide every adapter: {v}"
    );
    let png = dir.join("x.png");
    for args in [
        vec!["--backend", "gpu", "count", "5"],
        vec!["--backend", "gpu", "grid", "5"],
        vec!["--backend", "gpu", "render", "11", "-o", s(&png)],
        vec!["--backend", "gpu", "ca", "10"],
        vec!["--backend", "gpu", "nimpass", "--heaps", "4", "--max", "3"],
        vec!["--backend", "gpu", "nimpass-grid", "--counts", "1..3"],
        vec!["--backend", "gpu", "bench", "--quick"],
    ] {
        with_env(&args, &env).assert_error("no GPU adapter");
        assert!(all_paths(&dir).is_empty());
    }
    // The same through the environment.
    env.push(("CHOMPUTE_BACKEND", "gpu"));
    with_env(&["count", "5"], &env).assert_error("no GPU adapter");
    env.pop();
    for (name, args) in [
        ("gp", vec!["gp", "5", "--json"]),
        ("theorems", vec!["theorems", "--max-m", "8", "--json"]),
        (
            "chomp",
            vec!["chomp", "ord", "--rule", "0,2,1", "--box", "3x3", "--json"],
        ),
        ("octahedron", vec!["octahedron", "3", "--check", "--json"]),
        (
            "cb",
            vec!["cb", "--f", "floor(z/2)", "--bound", "1,4", "--json"],
        ),
    ] {
        let mut a = vec!["--backend", "gpu"];
        a.extend(&args);
        let r = with_env(&a, &env);
        r.assert_success();
        let lines = r.stderr_lines();
        assert_eq!(lines.len(), 1, "{}: one line on stderr: {lines:?}", r.what);
        assert!(
            lines[0].contains(&format!("{name} has no GPU kernel")) && lines[0].contains("CPU"),
            "{}: {}",
            r.what,
            lines[0]
        );
        let v: serde_json::Value =
            serde_json::from_slice(&r.stdout).unwrap_or_else(|e| panic!("{}: JSON: {e}", r.what));
        assert_eq!(v["backend"], "cpu", "{}", r.what);
        // Asked for nothing in particular, they say nothing.
        let r = with_env(&args, &env);
        r.assert_success();
        assert!(r.stderr_lines().is_empty(), "{}: {}", r.what, r.stderr);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A rates file that cannot be used (not JSON, another program's, another version) is ignored
/// with one warning line, and never fails a command: `info` still lists every job's choice,
/// and commands run.
#[test]
fn an_unusable_rates_file_is_ignored_with_one_warning() {
    let dir = scratch("rates");
    let cache = dir.join("cache");
    std::fs::create_dir_all(cache.join("chompute")).unwrap();
    let file = cache.join("chompute").join("rates.json");
    let cache_s = cache.to_str().unwrap();
    for text in [
        "{ this is not json",
        r#"{"format": "fftw-wisdom", "version": 1}"#,
        r#"{"format": "chompute-rates", "version": 99, "machines": []}"#,
    ] {
        std::fs::write(&file, text).unwrap();
        let info = with_env(&["info", "--json"], &[("XDG_CACHE_HOME", cache_s)]);
        info.assert_success();
        let lines = info.stderr_lines();
        let warnings: Vec<&&str> = lines
            .iter()
            .filter(|l| l.contains("ignoring the rates file"))
            .collect();
        assert_eq!(warnings.len(), 1, "{text}: {lines:?}");
        assert!(warnings[0].starts_with("chompute: warning: ") && warnings[0].contains(s(&file)));
        let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
        let auto = v["auto"].as_array().unwrap();
        assert_eq!(auto.len(), 7, "{v}");
        assert!(auto.iter().all(|d| d["reason"] != "measured"), "{v}");
        assert_eq!(v["rates_file"], s(&file));
        // Commands that `auto` decides for run as ever.
        let count = with_env(&["count", "37"], &[("XDG_CACHE_HOME", cache_s)]);
        count.assert_success();
        assert_eq!(String::from_utf8_lossy(&count.stdout).trim(), "161");
    }
    // Without an adapter every job is the CPU's, for want of one.
    let mut env = NO_ADAPTER.to_vec();
    env.push(("XDG_CACHE_HOME", cache_s));
    let info = with_env(&["info", "--json"], &env);
    info.assert_success();
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    for d in v["auto"].as_array().unwrap() {
        assert_eq!(
            (&d["side"], &d["reason"]),
            (&"cpu".into(), &"no-adapter".into())
        );
    }
    // `bench --save` without an adapter, or with --backend cpu, refuses before any work.
    with_env(&["bench", "--quick", "--save"], &env).assert_error("needs a GPU adapter");
    with_env(
        &["--backend", "cpu", "bench", "--quick", "--save"],
        &[("XDG_CACHE_HOME", cache_s)],
    )
    .assert_error("drop --backend cpu");
    // Nor where the file could not be saved: a cache folder under a file, or a rates file
    // that is a folder.
    let plain = dir.join("plain");
    std::fs::write(&plain, "x").unwrap();
    let under_file = plain.join("cache");
    with_env(
        &["bench", "--quick", "--save"],
        &[("XDG_CACHE_HOME", under_file.to_str().unwrap())],
    )
    .assert_error("Not a directory");
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    with_env(
        &["bench", "--quick", "--save"],
        &[("XDG_CACHE_HOME", cache_s)],
    )
    .assert_error("is a directory");
    // A relative XDG_CACHE_HOME is ignored, as the XDG base directory specification asks:
    // the file is HOME's.
    let home = dir.join("home");
    let info = with_env(
        &["info", "--json"],
        &[("XDG_CACHE_HOME", "relative/cache"), ("HOME", s(&home))],
    );
    info.assert_success();
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(
        v["rates_file"],
        s(&home.join(".cache").join("chompute").join("rates.json"))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `ca --kernel auto` steps the automaton with the fastest kernel measured on this machine
/// (the rates file's `kernels`, keyed as `bench --save` keys them), and by the rule where none
/// was: the step kernel on a software adapter. `info` says which and why.
#[test]
fn the_automaton_kernel_auto_picks_is_the_fastest_measured_here() {
    let Some(ctx) = super::common::gpu_or_skip("the_automaton_kernel_auto_picks") else {
        return;
    };
    let key = chompute::gpu::choice::MachineKey::of(&ctx);
    let dir = scratch("kernel-rates");
    let cache = dir.join("cache");
    std::fs::create_dir_all(cache.join("chompute")).unwrap();
    let file = cache.join("chompute").join("rates.json");
    let cache_s = cache.to_str().unwrap();
    let picked = |kernels: Option<serde_json::Value>| {
        match &kernels {
            Some(k) => {
                let machine = serde_json::json!({
                    "adapter": key.adapter, "driver": key.driver, "cpus": key.cpus,
                    "measured_at": 0, "jobs": {}, "kernels": k,
                });
                let text = serde_json::json!({
                    "format": "chompute-rates", "version": 1, "machines": [machine],
                });
                std::fs::write(&file, text.to_string()).unwrap();
            }
            None => {
                let _ = std::fs::remove_file(&file);
            }
        }
        let env = [("XDG_CACHE_HOME", cache_s)];
        let ca = with_env(&["--backend", "gpu", "ca", "300", "--json"], &env);
        ca.assert_success();
        let v: serde_json::Value = serde_json::from_slice(&ca.stdout).unwrap();
        assert_eq!(v["live_cells"], 3001, "{v}");
        let info = with_env(&["info", "--json"], &env);
        info.assert_success();
        let i: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
        let k = &i["automaton_kernel"];
        assert_eq!(k["kernel"], v["kernel"], "{i}");
        let family = v["kernel"].as_str().unwrap().split(' ').next().unwrap();
        (
            family.to_string(),
            k["reason"].as_str().unwrap().to_string(),
        )
    };
    let rule = if ctx.is_software() || ctx.subgroup_sizes().is_none() {
        "step"
    } else {
        "regs"
    };
    assert_eq!(picked(None), (rule.into(), "rule".into()));
    // Rates only of a kernel this device does not run: still the rule.
    let other = serde_json::json!({"warp9": 1e15});
    assert_eq!(picked(Some(other)), (rule.into(), "rule".into()));
    let block_fastest = serde_json::json!({"step": 1e9, "block": 5e9, "regs": 2e9});
    if chompute::gpu::ca::CaKernel::block(&ctx).is_some() {
        assert_eq!(
            picked(Some(block_fastest)),
            ("block".into(), "measured".into())
        );
    }
    let step_fastest = serde_json::json!({"step": 9e9, "block": 5e9, "regs": 2e9});
    assert_eq!(
        picked(Some(step_fastest)),
        ("step".into(), "measured".into())
    );
    if ctx.subgroup_sizes().is_some() {
        let regs_fastest = serde_json::json!({"step": 1e9, "regs": 3e9});
        assert_eq!(
            picked(Some(regs_fastest)),
            ("regs".into(), "measured".into())
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
