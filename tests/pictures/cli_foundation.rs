//! The foundation commands through the built binary: output, JSON and exit codes.

use crate::common;

use common::{assert_usage_error, chompute, stderr, stdout};

#[test]
fn count_default_and_all_methods_agree() {
    let o = chompute(&["count", "14"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "84");

    for m in ["4095", "30001"] {
        let o = chompute(&["count", m, "--method", "all", "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["agree"], true);
        assert_eq!(v["m"].as_str(), Some(m), "m as a JSON string");
        let names: Vec<&str> = v["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["method"].as_str().unwrap())
            .collect();
        for needed in ["digits", "recurrence", "histogram", "cpu"] {
            assert!(names.contains(&needed), "{m}: {names:?}");
        }
        let count = v["count"].as_str().unwrap();
        for meth in v["methods"].as_array().unwrap() {
            assert_eq!(meth["count"].as_str().unwrap(), count);
        }
    }
}

#[test]
fn count_rectangles_and_explicit_methods() {
    let h = chompute(&["count", "4095", "30001", "--method", "histogram"]);
    let c = chompute(&[
        "--backend",
        "cpu",
        "count",
        "4095",
        "30001",
        "--method",
        "cpu",
    ]);
    assert!(h.status.success() && c.status.success());
    assert_eq!(stdout(&h), stdout(&c));
    // The default (the digit method) agrees.
    assert_eq!(stdout(&chompute(&["count", "4095", "30001"])), stdout(&h));
}

#[test]
fn count_recurrence_at_u64_max_is_exact() {
    let o = chompute(&["count", "18446744073709551615", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let g: u128 = v["count"].as_str().unwrap().parse().unwrap();
    // g(2^64-1) = g(2^63-1) + g(2^63) with g(2^63) = 4^63.
    let half = chompute(&["count", "9223372036854775807"]);
    let g_half: u128 = stdout(&half).trim().parse().unwrap();
    assert_eq!(g, g_half + (1u128 << 126));
}

#[test]
fn count_bad_input_is_one_line_and_status_2() {
    assert_usage_error(&chompute(&["count", "0"]), "at least 1");
    assert_usage_error(&chompute(&["count", "-5"]), "-5");
    assert_usage_error(&chompute(&["count", "abc"]), "abc");
    assert_usage_error(&chompute(&["count", "18446744073709551616"]), "2^64");
    assert_usage_error(
        &chompute(&["count", "5", "7", "--method", "recurrence"]),
        "square",
    );
    assert_usage_error(&chompute(&["count", "5", "--method", "fastest"]), "fastest");
    assert_usage_error(
        &chompute(&["count", "18446744073709551615", "--method", "cpu"]),
        "cells",
    );
    assert_usage_error(
        &chompute(&[
            "count",
            "18446744073709551615",
            "7",
            "--method",
            "histogram",
        ]),
        "too large",
    );
    assert_usage_error(&chompute(&["frobnicate"]), "frobnicate");
    // A missing argument is named on the one line.
    assert_usage_error(&chompute(&["count"]), "<M>");
}

#[test]
fn grid_prints_the_p_cells() {
    let o = chompute(&["grid", "11"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 11);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 11);
        for (j, ch) in row.chars().enumerate() {
            let (i, j) = (i as u64 + 1, j as u64 + 1);
            let p = chompute::chocolate::p_cell(11, 11, i, j);
            assert_eq!(ch, if p { '#' } else { '.' }, "cell ({i},{j})");
        }
    }
    let rect = stdout(&chompute(&["grid", "3", "7"]));
    assert_eq!(rect.lines().count(), 3);
    assert!(rect.lines().all(|l| l.len() == 7));
    assert_usage_error(&chompute(&["grid", "5000"]), "too large to read");
    assert_usage_error(&chompute(&["grid", "0", "3"]), "at least 1");
}

#[test]
fn grid_on_the_gpu_matches_the_cpu() {
    if common::gpu_or_skip("grid_on_the_gpu_matches_the_cpu").is_none() {
        return;
    }
    let g = chompute(&["--backend", "gpu", "grid", "37", "45"]);
    let c = chompute(&["--backend", "cpu", "grid", "37", "45"]);
    assert!(g.status.success(), "{}", stderr(&g));
    assert_eq!(stdout(&g), stdout(&c));
}

#[test]
fn info_reports_the_adapter_or_why_not() {
    let o = chompute(&["info", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["adapter"].is_object() || v["reason"].is_string());
    if let Some(a) = v["adapter"].as_object() {
        assert!(
            a["name"].is_string() && a["max_storage_buffer_binding_size"].as_u64().unwrap() > 0
        );
        let auto = if a["software"] == true { "cpu" } else { "gpu" };
        assert_eq!(v["auto_selects"], auto);
    }
    // Every job's choice, and why.
    let jobs: Vec<&str> = v["auto"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["job"].as_str().unwrap())
        .collect();
    assert_eq!(
        jobs,
        [
            "render",
            "generate",
            "count",
            "fit",
            "automaton",
            "nimpass",
            "chomp"
        ]
    );
    let plain = chompute(&["info"]);
    assert!(plain.status.success() && stdout(&plain).contains("--backend auto selects"));
}

#[test]
fn bench_quick_reports_both_backends() {
    let have_gpu = common::gpu_or_skip("bench_quick_reports_both_backends").is_some();
    // With a GPU, `--save` too, into a cache directory of the test's own.
    let cache = common::scratch_dir("bench_save_cache");
    let with_cache = |args: &[&str]| {
        std::process::Command::new(common::bin())
            .args(args)
            .env("XDG_CACHE_HOME", &*cache)
            .output()
            .unwrap()
    };
    let o = if have_gpu {
        with_cache(&["bench", "--quick", "--json", "--save"])
    } else {
        chompute(&["bench", "--quick", "--json"])
    };
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let ms = v["measurements"].as_array().unwrap();
    let has = |k: &str, b: &str| {
        ms.iter().any(|m| {
            m["kernel"] == k && m["backend"] == b && m["per_second"].as_f64().unwrap() > 0.0
        })
    };
    assert!(has("p-grid generate", "cpu") && has("p-grid count", "cpu"));
    if have_gpu {
        assert!(has("p-grid generate", "gpu") && has("p-grid count", "gpu"));
        assert!(v["adapter"]["name"].is_string());
        saved_rates_are_the_measurements(&v, &cache);
        let info = with_cache(&["info", "--json"]);
        assert!(
            info.status.success() && stderr(&info).is_empty(),
            "{}",
            stderr(&info)
        );
        let i: serde_json::Value = serde_json::from_str(&stdout(&info)).unwrap();
        for d in i["auto"].as_array().unwrap() {
            // A software adapter is never `auto`'s, measured or not; a real one goes by the
            // measured rates.
            let want = if v["adapter"]["software"] == true {
                "software-adapter"
            } else {
                "measured"
            };
            assert_eq!(d["reason"], want, "{i}");
        }
    }
    std::fs::remove_dir_all(&cache).ok();
}

/// The rates file `bench --save` wrote holds, for this adapter and CPU count, each job's rates
/// as the rows of its report.
fn saved_rates_are_the_measurements(v: &serde_json::Value, cache: &std::path::Path) {
    use chompute::gpu::choice::{read_rates, Job};
    let path = cache.join("chompute").join("rates.json");
    assert_eq!(v["saved"]["file"], path.to_str().unwrap());
    let file = read_rates(&path).unwrap().expect("the rates file");
    assert_eq!(file.machines.len(), 1);
    let m = &file.machines[0];
    assert_eq!(m.key.adapter, v["adapter"]["name"].as_str().unwrap());
    assert_eq!(m.key.cpus, chompute::gpu::choice::cpus());
    assert_eq!(m.jobs.len(), Job::ALL.len(), "{m:?}");
    let ms = v["measurements"].as_array().unwrap();
    for job in Job::ALL {
        let (cpu_row, gpu_row, size) = job.bench_rows();
        let rate = |kernel: &str, backend: &str| {
            ms.iter()
                .find(|r| {
                    r["kernel"] == kernel
                        && r["backend"] == backend
                        && r["size"].as_str().unwrap().starts_with(size)
                })
                .unwrap()["per_second"]
                .as_f64()
                .unwrap()
        };
        let saved = m.jobs[job.name()];
        assert_eq!(saved.cpu, rate(cpu_row, "cpu"), "{job}");
        assert_eq!(saved.gpu, rate(gpu_row, "gpu"), "{job}");
    }
    // Each automaton kernel measured, by its family, at the rate of its last-quarter row.
    let quarters: Vec<&serde_json::Value> = ms
        .iter()
        .filter(|r| {
            let k = r["kernel"].as_str().unwrap();
            r["backend"] == "gpu" && k.starts_with("ca steps") && k.ends_with("(last quarter)")
        })
        .collect();
    assert!(!quarters.is_empty());
    assert_eq!(m.kernels.len(), quarters.len(), "{m:?}");
    for r in quarters {
        let size = r["size"].as_str().unwrap();
        let family = size.rsplit(", ").next().unwrap().split(' ').next().unwrap();
        assert_eq!(
            m.kernels[family],
            r["per_second"].as_f64().unwrap(),
            "{size}"
        );
    }
}
