//! `brook-report`: runs the papers' applications headless, checks every result against its
//! reference, and prints each variant's time, rate and ratio to the hand-written GL version,
//! with streamRead/streamWrite apart — the papers' figure, measured on this machine.

mod cli;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;

use brook_apps::cost_model::CostModel;
use brook_apps::report::figure::Format;
use brook_apps::report::json::Report;
use brook_apps::report::machine::Machine;
use brook_apps::report::progress::Progress;
use brook_apps::{
    applications, knee, measure, report, AppError, AppResult, Baseline, Budget, Env, Flavor, Ratio,
    Scale,
};

fn main() -> ExitCode {
    // clap prints help and version to stdout (status 0) and usage errors naming the bad
    // argument to stderr (status 2).
    let cli = cli::Cli::parse();
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}

/// Runs the report; `Ok(false)` when some result did not match its reference.
fn run(cli: &cli::Cli) -> Result<bool, AppError> {
    let apps = match &cli.only {
        Some(names) => applications::named(names).map_err(AppError::Usage)?,
        None => applications::all(),
    };
    if cli.list {
        for app in &apps {
            println!("{:<12} {}", app.name(), app.summary());
        }
        return Ok(true);
    }
    let scale = cli.scale();
    let env = Env::headless()?;
    let machine = Machine::of(&env);
    let budget = match scale {
        Scale::Full => Budget {
            time: Duration::from_secs(6),
            max_runs: 30,
        },
        _ => Budget {
            time: Duration::from_millis(600),
            max_runs: 10,
        },
    };
    println!("{machine}\n");
    let started = Instant::now();
    let mut progress = Progress::new(apps.len());
    let mut results = Vec::new();
    for app in &apps {
        let instance = app.instance(&env, scale)?;
        progress.start(app.name(), &instance.size);
        let result = measure(
            app.name(),
            app.baseline(),
            instance,
            budget,
            |_| true,
            Some(&env),
            &mut |stage| progress.stage(stage),
        );
        progress.finish_app(result.all_passed());
        results.push(result);
    }
    let applications_took = started.elapsed();
    let knee_points = if cli.wants_knee() {
        let per_size = Duration::from_millis(scale.pick(200, 30, 1));
        knee::sweep(&env, scale, per_size, &mut |done, of| {
            progress.knee(done, of)
        })?
    } else {
        Vec::new()
    };
    drop(progress); // clears the bar before the tables are printed
                    // A flavour whose checked call gave a wrong result is not timed: said here, listed under
                    // the knee table, and the report fails.
    let knee_failures: Vec<String> = knee_points
        .iter()
        .flat_map(|p| p.failures.iter().map(move |(_, why)| (p.elements, why)))
        .map(|(elements, why)| format!("kernel-call knee at {elements} elements: {why}"))
        .collect();
    for failure in &knee_failures {
        eprintln!("{failure}");
    }

    println!("{}", report::text(&results));
    println!(
        "{} applications in {:.0} s; compute is the median of repeated runs, streamRead/streamWrite the median of rotated rounds beside the hand-written transfers.",
        results.len(),
        applications_took.as_secs_f64()
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
    if !knee_points.is_empty() {
        extra.push_str("Kernel-call knee (001 Fig. 4): time per call of the 43-MAD kernel\n");
        extra.push_str(&knee::table(&knee_points));
    }
    println!("{extra}");
    let renderer = &machine.gl_renderer;
    let knee_title = format!("Kernel-call knee on {renderer}");
    for (path, format) in [(&cli.knee_png, Format::Png), (&cli.knee_svg, Format::Svg)] {
        if let (Some(path), false) = (path, knee_points.is_empty()) {
            knee::plot(&knee_points, &knee_title, path, format)?;
            println!("knee plot: {}", path.display());
        }
    }
    let chart_title = format!("Brook applications on {renderer}");
    for (path, format) in [(&cli.png, Format::Png), (&cli.svg, Format::Svg)] {
        if let Some(path) = path {
            report::chart::bars(&results, &chart_title, path, format)?;
            println!("chart: {}", path.display());
        }
    }
    if let Some(path) = &cli.markdown {
        let md = format!(
            "{}\n\n{}\n```text\n{extra}```\n",
            machine.to_string().replace('\n', "  \n"),
            report::markdown(&results)
        );
        std::fs::write(path, md)
            .map_err(|e| AppError::Write(format!("{}: {e}", path.display())))?;
        println!("Markdown table: {}", path.display());
    }
    if let Some(path) = &cli.json {
        Report::new(machine.clone(), scale, &results, &knee_points).write(path)?;
        println!("JSON: {}", path.display());
    }
    // The 1.1× goal is about the compiler's and runtime's overhead: same-passes baselines
    // only. Expert baselines also measure the stream model; they are listed with how they differ.
    let same_passes = results
        .iter()
        .filter(|r| r.baseline == Baseline::SamePasses);
    print_over(
        "Brook GL over 1.1× the same passes written by hand",
        same_passes.filter_map(|r| Some((r, r.row(Flavor::BrookGl)?.versus_hand_gl?))),
    );
    print_over(
        "Brook wgpu over 1.1× the same passes written by hand in wgpu",
        (results.iter()).filter_map(|r| Some((r, r.brook_wgpu_to_hand_wgpu()?))),
    );
    for r in &results {
        if let Baseline::Expert(how) = r.baseline {
            println!("{}: an expert baseline ({how}).", r.name);
        }
    }
    Ok(results.iter().all(|r| r.all_passed()) && knee_failures.is_empty())
}

/// Prints `what` and the applications whose ratio is over 1.1× by its interval, if any.
fn print_over<'r>(what: &str, ratios: impl Iterator<Item = (&'r AppResult, Ratio)>) {
    let slow: Vec<String> = ratios
        .filter(|(_, ratio)| ratio.median > 1.1 && !ratio.is_equal())
        .map(|(r, ratio)| format!("{} ({:.2}×)", r.name, ratio.median))
        .collect();
    if !slow.is_empty() {
        println!("{what}: {}", slow.join(", "));
    }
}
