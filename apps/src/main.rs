//! `brook-report`: runs the papers' applications headless, checks every result against its
//! reference, and prints each variant's time, rate and ratio to the hand-written GL version,
//! with streamRead/streamWrite apart — the papers' figure, measured on this machine.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use brook_apps::cost_model::CostModel;
use brook_apps::{
    applications, knee, measure, report, AppError, Baseline, Budget, Env, Flavor, Scale,
};

const USAGE: &str = "\
brook-report [--quick] [--only NAME,NAME] [--markdown FILE] [--png FILE] [--knee-png FILE]

  --quick           smaller sizes (under a minute on llvmpipe); default: the papers' sizes
  --only NAMES      run only these applications (comma-separated; --list shows them), and
                    skip the kernel-call knee unless --knee is given
  --knee            measure the kernel-call knee even with --only
  --markdown FILE   also write the tables as Markdown
  --png FILE        also write a bar chart of the ratios as PNG
  --knee-png FILE   also write the kernel-call knee as a log-log plot (PNG)
  --list            list the applications and exit";

struct Options {
    scale: Scale,
    only: Option<Vec<String>>,
    markdown: Option<PathBuf>,
    png: Option<PathBuf>,
    knee: bool,
    knee_png: Option<PathBuf>,
    list: bool,
}

fn parse(args: &[String]) -> Result<Options, AppError> {
    let mut options = Options {
        scale: Scale::Full,
        only: None,
        markdown: None,
        png: None,
        knee: false,
        knee_png: None,
        list: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |what: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| AppError::Usage(format!("{arg} needs {what}\n\n{USAGE}")))
        };
        match arg.as_str() {
            "--quick" => options.scale = Scale::Quick,
            "--only" => options.only = Some(value("names")?.split(',').map(String::from).collect()),
            "--markdown" => options.markdown = Some(value("a file")?.into()),
            "--png" => options.png = Some(value("a file")?.into()),
            "--knee" => options.knee = true,
            "--knee-png" => options.knee_png = Some(value("a file")?.into()),
            "--list" => options.list = true,
            "--help" | "-h" => return Err(AppError::Usage(USAGE.into())),
            other => {
                return Err(AppError::Usage(format!(
                    "unknown option {other}\n\n{USAGE}"
                )))
            }
        }
    }
    Ok(options)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}

/// Runs the report; `Ok(false)` when some result did not match its reference.
fn run(args: &[String]) -> Result<bool, AppError> {
    let options = parse(args)?;
    let apps = match &options.only {
        Some(names) => applications::named(names).map_err(AppError::Usage)?,
        None => applications::all(),
    };
    if options.list {
        for app in &apps {
            println!("{:<12} {}", app.name(), app.summary());
        }
        return Ok(true);
    }
    let env = Env::headless()?;
    let budget = match options.scale {
        Scale::Full => Budget {
            time: Duration::from_secs(6),
            max_runs: 30,
        },
        _ => Budget {
            time: Duration::from_millis(600),
            max_runs: 10,
        },
    };
    println!("{}\n", report::machine::describe(&env));
    let started = Instant::now();
    let mut results = Vec::new();
    for app in &apps {
        eprint!("{} … ", app.name());
        let instance = app.instance(&env, options.scale)?;
        let result = measure(
            app.name(),
            app.baseline(),
            instance,
            budget,
            |_| true,
            Some(&env),
        );
        eprintln!("{}", if result.all_passed() { "ok" } else { "FAILED" });
        results.push(result);
    }
    println!("{}", report::text(&results));
    println!(
        "{} applications in {:.0} s; compute is the median of repeated runs, streamRead/streamWrite are timed once.",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    let mut extra = String::new();
    if let Some(model) = results
        .iter()
        .find(|r| r.name == "SAXPY")
        .and_then(CostModel::from_saxpy)
    {
        extra.push_str(&model.describe());
        extra.push_str("\n\n");
    }
    if options.knee || options.only.is_none() {
        eprintln!("kernel-call knee …");
        let per_size = Duration::from_millis(options.scale.pick(200, 30, 1));
        let points = knee::sweep(&env, options.scale, per_size)?;
        extra.push_str("Kernel-call knee (001 Fig. 4): time per call of the 43-MAD kernel\n");
        extra.push_str(&knee::table(&points));
        if let Some(path) = &options.knee_png {
            let title = format!("Kernel-call knee on {}", env.context.caps().renderer);
            knee::plot(&points, &title, path)?;
            extra.push_str(&format!("knee plot: {}\n", path.display()));
        }
    }
    println!("{extra}");
    if let Some(path) = &options.markdown {
        let md = format!(
            "{}\n\n{}\n```text\n{extra}```\n",
            report::machine::describe(&env).replace('\n', "  \n"),
            report::markdown(&results)
        );
        std::fs::write(path, md)
            .map_err(|e| AppError::Usage(format!("writing {}: {e}", path.display())))?;
        println!("Markdown table: {}", path.display());
    }
    if let Some(path) = &options.png {
        let title = format!("Brook applications on {}", env.context.caps().renderer);
        report::chart::bars(&results, &title, path)?;
        println!("chart: {}", path.display());
    }
    // The 1.1× goal is about the compiler's and runtime's overhead: same-passes baselines
    // only. Expert baselines also measure the stream model; they are listed with how they differ.
    let slow: Vec<String> = results
        .iter()
        .filter(|r| r.baseline == Baseline::SamePasses)
        .filter_map(|r| {
            let ratio = r.row(Flavor::BrookGl)?.versus_hand_gl?;
            (ratio.median > 1.1 && !ratio.is_equal())
                .then(|| format!("{} ({:.2}×)", r.name, ratio.median))
        })
        .collect();
    if !slow.is_empty() {
        println!(
            "Brook GL over 1.1× the same passes written by hand: {}",
            slow.join(", ")
        );
    }
    for r in &results {
        if let Baseline::Expert(how) = r.baseline {
            println!("{}: an expert baseline ({how}).", r.name);
        }
    }
    Ok(results.iter().all(|r| r.all_passed()))
}
