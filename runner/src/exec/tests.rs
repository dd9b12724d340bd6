#![allow(clippy::unwrap_used)]

use super::*;

fn sh(script: &str) -> ExecOptions {
    let mut o = ExecOptions::new(
        vec!["sh".into(), "-c".into(), script.into()],
        std::env::temp_dir(),
    );
    o.passthrough = false;
    o.grace = Duration::from_millis(500);
    o
}

#[test]
fn exit_code_and_tails() {
    let e = execute(&sh("echo out; echo err >&2; exit 3"), &Interrupt::none()).unwrap();
    assert_eq!(e.exit_code, Some(3));
    assert_eq!(e.signal, None);
    assert_eq!(e.stdout_tail, "out\n");
    assert_eq!(e.stderr_tail, "err\n");
    assert!(!e.succeeded());
}

#[test]
fn a_signal_is_recorded() {
    let e = execute(&sh("kill -9 $$"), &Interrupt::none()).unwrap();
    assert_eq!(e.exit_code, None);
    assert_eq!(e.signal, Some(9));
    assert_eq!(e.signal_name().as_deref(), Some("SIGKILL"));
}

#[test]
fn the_tail_is_bounded() {
    let mut o = sh("i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done");
    o.tail_bytes = 100;
    let e = execute(&o, &Interrupt::none()).unwrap();
    assert!(e.stdout_tail.len() <= 100);
    assert!(e.stdout_tail.ends_with("line1999\n"));
}

#[test]
fn a_timeout_ends_the_group() {
    let mut o = sh("sleep 30 & sleep 30; wait");
    o.timeout = Some(Duration::from_millis(300));
    let e = execute(&o, &Interrupt::none()).unwrap();
    assert!(e.timed_out);
    assert!(e.duration_secs < 10.0, "{}", e.duration_secs);
}

#[test]
fn a_group_that_ignores_sigterm_is_killed_after_the_grace_and_it_is_recorded() {
    let mut o = sh("trap '' TERM; sleep 30");
    o.timeout = Some(Duration::from_millis(300));
    let e = execute(&o, &Interrupt::none()).unwrap();
    assert!(e.timed_out);
    assert!(e.killed_after_grace);
    assert_eq!(e.limit_secs, Some(0.3));
    // Stopped at the limit, killed the grace (500 ms here) later.
    assert!(e.stop_secs.is_some_and(|s| s >= 0.5), "{:?}", e.stop_secs);
    assert!(e.duration_secs < 0.3 + 0.5 + 0.5, "{}", e.duration_secs);
    let quick = {
        let mut o = sh("sleep 30");
        o.timeout = Some(Duration::from_millis(300));
        execute(&o, &Interrupt::none()).unwrap()
    };
    assert!(!quick.killed_after_grace);
}

#[test]
fn an_interrupt_is_forwarded() {
    let flag = Interrupt::none();
    flag.0.store(2, Ordering::SeqCst);
    let e = execute(&sh("sleep 30"), &flag).unwrap();
    assert!(e.interrupted);
    assert_eq!(e.interrupt_signal, Some(2));
    // SIGINT, or SIGTERM when the test runs with SIGINT ignored (a background job).
    assert!(matches!(e.signal, Some(2 | 15)), "{:?}", e.signal);
}

#[test]
fn the_whole_output_is_read_not_only_its_tail() {
    // The failure line is far beyond the tail that is kept.
    let mut o = sh(
        "echo 'FAIL\texample.com/p [build failed]'; i=0; while [ $i -lt 3000 ]; do echo log line $i; i=$((i+1)); done; echo '== 2 failed, 3 passed in 0.1s ==' >&2",
    );
    o.tail_bytes = 1024;
    let e = execute(&o, &Interrupt::none()).unwrap();
    assert!(!e.stdout_tail.contains("build failed"));
    assert_eq!(e.recognised.len(), 1, "{:?}", e.recognised);
    assert_eq!(e.recognised[0].stream, "stdout");
    assert_eq!(e.summaries.len(), 1);
    assert_eq!(
        (
            e.summaries[0].ecosystem,
            e.summaries[0].stream,
            e.summaries[0].failed
        ),
        ("pytest", "stderr", 2)
    );
}

#[test]
fn stdout_is_copied_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = sh("echo 'TAP version 13'; echo ok 1");
    o.stdout_file = Some(dir.path().join("stdout"));
    execute(&o, &Interrupt::none()).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("stdout")).unwrap(),
        "TAP version 13\nok 1\n"
    );
}

#[test]
fn leftover_background_processes_are_ended() {
    let e = execute(&sh("sleep 30 & echo started"), &Interrupt::none()).unwrap();
    assert_eq!(e.exit_code, Some(0));
    assert!(e.leftovers_killed);
}

#[test]
fn a_process_that_left_the_group_holding_the_output_is_not_waited_for() {
    let mut o = sh("setsid sleep 8 & echo started; sleep 30");
    o.timeout = Some(Duration::from_millis(500));
    let e = execute(&o, &Interrupt::none()).unwrap();
    assert!(e.timed_out);
    assert!(e.output_held_open);
    assert_eq!(e.stdout_tail, "started\n");
    assert!(e.duration_secs < 5.0, "{}", e.duration_secs);
    // Without a time limit too: the command exits, its escaped child keeps the pipe (given
    // the moment it needs to leave the group before the command ends).
    let e = execute(
        &sh("setsid sleep 8 & sleep 0.5; echo done"),
        &Interrupt::none(),
    )
    .unwrap();
    assert_eq!(e.exit_code, Some(0));
    assert!(e.output_held_open);
    assert_eq!(e.stdout_tail, "done\n");
}

#[test]
fn a_signal_reported_as_an_exit_status_is_read_as_the_signal() {
    let mut o = sh("exit 137");
    o.signal_as_exit_status = true;
    let e = execute(&o, &Interrupt::none()).unwrap();
    assert_eq!((e.exit_code, e.signal), (None, Some(9)));
    let e = execute(&sh("exit 137"), &Interrupt::none()).unwrap();
    assert_eq!((e.exit_code, e.signal), (Some(137), None));
}

#[test]
fn a_stamp_taken_earlier_is_the_freshness_bound() {
    let earlier = SystemTime::now() - Duration::from_secs(60);
    let mut o = sh("true");
    o.fresh_after = Some(earlier);
    let e = execute(&o, &Interrupt::none()).unwrap();
    assert_eq!(e.fresh_after, earlier);
}

#[test]
fn a_cleared_environment_holds_only_what_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = sh("env > env.txt");
    o.dir = dir.path().to_owned();
    o.clear_env = true;
    o.env = vec![("ONLY".into(), "1".into())];
    execute(&o, &Interrupt::none()).unwrap();
    let seen = std::fs::read_to_string(dir.path().join("env.txt")).unwrap();
    assert!(seen.contains("ONLY=1"), "{seen}");
    assert!(!seen.contains("CARGO"), "{seen}");
}

#[test]
fn a_missing_program_is_an_error() {
    let o = ExecOptions::new(vec!["/nonexistent/prog".into()], std::env::temp_dir());
    assert!(execute(&o, &Interrupt::none()).is_err());
}
