//! The `brook-report` binary's command line, run as a user runs it: what it lists, what its
//! help says, and how it refuses a bad argument (exit status 2, naming it). The measuring
//! itself is checked by `apps.rs` and the report modules' tests.

use std::process::{Command, Output};

use brook_apps::applications;

fn report(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_brook-report"))
        .args(args)
        .output()
        .expect("brook-report runs")
}

#[test]
fn list_names_every_application() {
    let out = report(&["--list"]);
    assert!(out.status.success());
    let listed = String::from_utf8(out.stdout).unwrap();
    for app in applications::all() {
        assert!(
            listed.lines().any(|l| l.starts_with(app.name())),
            "{} missing from:\n{listed}",
            app.name()
        );
    }
    let only = report(&["--list", "--only", "fft,saxpy"]);
    let listed = String::from_utf8(only.stdout).unwrap();
    assert_eq!(listed.lines().count(), 2, "{listed}");
}

#[test]
fn help_describes_every_output() {
    let out = report(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for flag in [
        "--quick",
        "--only <NAMES>",
        "--knee",
        "--markdown <FILE>",
        "--json <FILE>",
        "--png <FILE>",
        "--svg <FILE>",
        "--knee-png <FILE>",
        "--knee-svg <FILE>",
        "--list",
        "Exit status",
    ] {
        assert!(help.contains(flag), "no {flag} in:\n{help}");
    }
}

#[test]
fn a_bad_argument_is_named_and_exits_with_status_2() {
    let out = report(&["--only", "SAXPY,Nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("'Nope'") && err.contains("--only"), "{err}");
    assert!(out.stdout.is_empty(), "nothing measured");
}
