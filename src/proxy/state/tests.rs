use super::*;
use serde_json::json;

fn child(suffix: &str, uid: &str, data: &str) -> Value {
    json!({"metadata": {"name": format!("parent-child-{suffix}"), "generateName": "parent-child-",
        "namespace": "run-1", "uid": uid, "resourceVersion": "12",
        "creationTimestamp": "2026-12-01T22:31:09Z", "managedFields": [{"manager": "m"}],
        "ownerReferences": [{"kind": "ConfigMap", "name": "parent", "uid": "p-uid"}]},
        "data": {"parent": data}})
}

fn parent(child: &str, ns: &str) -> Value {
    let applied = format!(
        "{{\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"parent\",\"namespace\":\"{ns}\"}}}}"
    );
    json!({"metadata": {"name": "parent", "namespace": ns, "uid": "p-uid",
        "annotations": {"informer.test/child": child, "at": "2026-12-01T22:31:09.123456Z",
            "kubectl.kubernetes.io/last-applied-configuration": applied}},
        "data": {"k": "v"}})
}

fn state(children: Vec<Value>, parents: Vec<Value>) -> State {
    let ns = parents
        .first()
        .and_then(|p| p["metadata"]["namespace"].as_str())
        .unwrap_or("demo")
        .to_string();
    State::of(
        &ns,
        vec![("secrets".into(), children), ("configmaps".into(), parents)],
        Fields::All,
    )
}

#[test]
fn what_each_run_makes_new_is_taken_out_and_a_generated_name_is_written_the_same_everywhere() {
    let one = state(
        vec![child("abcde", "u1", "x")],
        vec![parent("parent-child-abcde", "run-1")],
    );
    let two = state(
        vec![child("vwxyz", "u2", "x")],
        vec![parent("parent-child-vwxyz", "run-2")],
    );
    assert_eq!(one.objects, two.objects);
    let secret = &one.objects["secrets parent-child-*"][0];
    assert_eq!(
        secret,
        &json!({"metadata": {"name": "parent-child-*", "generateName": "parent-child-",
            "ownerReferences": [{"kind": "ConfigMap", "name": "parent"}]},
            "data": {"parent": "x"}})
    );
    let annotations = &one.objects["configmaps parent"][0]["metadata"]["annotations"];
    assert_eq!(annotations["informer.test/child"], "parent-child-*");
    assert_eq!(annotations["at"], "<time>");
    assert_eq!(
        annotations["kubectl.kubernetes.io/last-applied-configuration"],
        "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"parent\",\"namespace\":\"<namespace>\"}}"
    );
    assert_eq!(
        compare(std::slice::from_ref(&one), &two, &[]),
        Verdict::default()
    );
}

#[test]
fn missing_extra_and_other_content_are_each_one_difference() {
    let base = state(
        vec![child("b2c4d", "u", "x")],
        vec![parent("parent-child-b2c4d", "n")],
    );
    let none = state(vec![], vec![parent("parent-child-b2c4d", "n")]);
    let two = state(
        vec![child("b2c4d", "u", "x"), child("d5f6g", "v", "x")],
        vec![parent("parent-child-d5f6g", "n")],
    );
    let other = state(
        vec![child("b2c4d", "u", "y")],
        vec![parent("parent-child-b2c4d", "n")],
    );
    let key = "secrets parent-child-*".to_string();
    assert_eq!(
        compare(std::slice::from_ref(&base), &none, &[]).differences,
        [Difference::Missing {
            key: key.clone(),
            count: 1
        }]
    );
    assert_eq!(
        compare(std::slice::from_ref(&base), &two, &[]).differences,
        [Difference::Extra {
            key: key.clone(),
            count: 1
        }]
    );
    assert_eq!(
        compare(std::slice::from_ref(&base), &other, &[]).differences,
        [Difference::Content {
            key,
            fields: vec![(".data.parent".into(), "\"x\"".into(), "\"y\"".into())]
        }]
    );
}

#[test]
fn what_the_baselines_disagree_on_is_left_out() {
    let with = |data: &str, extra: &str| {
        let mut p = parent("parent-child-b2c4d", "n");
        p["data"]["k"] = data.into();
        p["metadata"]["annotations"]["varies"] = extra.into();
        state(vec![child("b2c4d", "u", "x")], vec![p])
    };
    // Two fault-free runs disagree on one annotation; a run that differs only there passes.
    let baselines = [with("v", "1"), with("v", "2")];
    let verdict = compare(&baselines, &with("v", "3"), &[]);
    assert_eq!(verdict.differences, []);
    assert_eq!(verdict.unstable_fields, 1);
    // What they agree on is still compared.
    let verdict = compare(&baselines, &with("w", "3"), &[]);
    assert_eq!(verdict.differences.len(), 1, "{verdict:?}");
    // A key whose count differs between them is left out whole.
    let three = state(
        vec![child("b2c4d", "u", "x"), child("zzzzz", "u", "x")],
        vec![parent("parent-child-b2c4d", "n")],
    );
    let verdict = compare(&[with("v", "1"), three], &with("v", "1"), &[]);
    assert_eq!(verdict.unstable_keys, 1);
}

#[test]
fn a_whole_generated_name_is_recognized_by_its_suffix_letters() {
    assert_eq!(
        generated_suffix("parent-child-b2c4d"),
        Some("parent-child-")
    );
    assert_eq!(generated_suffix("web-7d9f8-x2z4k"), Some("web-7d9f8-"));
    for s in [
        "parent-child-abcde",
        "parent",
        "web-b2c4",
        "-b2c4d",
        "Parent-b2c4d",
        "a b-b2c4d",
    ] {
        assert_eq!(generated_suffix(s), None, "{s}");
    }
}

#[test]
fn rfc_3339_times_are_recognized_and_other_strings_are_not() {
    for (s, time) in [
        ("2026-12-01T22:31:09Z", true),
        ("2026-12-01T22:31:09.123456Z", true),
        ("2026-12-01T22:31:09+01:00", true),
        ("2026-12-01", false),
        ("parent-child-abcde", false),
        ("2026-12-01 22:31:09Z", false),
    ] {
        assert_eq!(is_time(s), time, "{s}");
    }
}

#[test]
fn the_controllers_creates_and_deletes_of_the_states_resources_are_compared_where_the_baselines_agree(
) {
    let with = |writes: &[(&str, u64)]| {
        let mut s = state(vec![], vec![]);
        s.writes = writes.iter().map(|(k, n)| (k.to_string(), *n)).collect();
        s
    };
    let base = with(&[
        ("create secrets", 1),
        ("patch configmaps", 1),
        ("create events", 4),
    ]);
    let recreated = with(&[
        ("create secrets", 2),
        ("delete secrets", 1),
        ("patch configmaps", 3),
        ("create events", 3),
    ]);
    assert_eq!(
        compare(std::slice::from_ref(&base), &recreated, &[]).differences,
        [
            Difference::Writes {
                key: "secrets create".into(),
                baseline: 1,
                run: 2
            },
            Difference::Writes {
                key: "secrets delete".into(),
                baseline: 0,
                run: 1
            },
        ],
        "patches are not compared, nor the writes of a resource outside the state (events)"
    );
    let other = with(&[("create secrets", 2), ("patch configmaps", 1)]);
    let verdict = compare(&[base, other], &recreated, &[]);
    assert_eq!(verdict.unstable_keys, 1, "the baselines differ on creates");
    assert_eq!(verdict.differences.len(), 1, "{verdict:?}");
}

#[test]
fn a_failed_workload_is_the_first_difference_and_is_not_saved_when_it_succeeded() {
    let base = state(
        vec![child("abcde", "u1", "x")],
        vec![parent("parent-child-abcde", "a")],
    );
    let mut run = base.clone();
    run.workload_failed = Some("exit status: 1".into());
    run.objects.clear();
    let differences = compare(std::slice::from_ref(&base), &run, &[]).differences;
    assert_eq!(
        differences[0],
        Difference::Workload {
            status: "exit status: 1".into()
        }
    );
    assert_eq!(
        differences.len(),
        3,
        "and what the end state shows: {differences:?}"
    );
    let saved = serde_json::to_value(&base).unwrap();
    assert!(saved.get("workloadFailed").is_none(), "{saved}");
    let read: State = serde_json::from_value(saved).unwrap();
    assert_eq!(read.workload_failed, None);
}

/// A Pod of a ReplicationController as one run leaves it: the controller's fields, and the node
/// the scheduler chose and the status kwok reported, which may differ from run to run.
fn rc_pod(node: &str, image: &str) -> Value {
    json!({"metadata": {"name": "web-b2c4d", "generateName": "web-", "uid": "u",
        "labels": {"app": "web"},
        "managedFields": [
            {"manager": "kube-controller-manager", "operation": "Update",
             "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}}},
                "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:name": {}, "f:image": {}}}}}},
            {"manager": "kwok", "operation": "Update", "subresource": "status",
             "fieldsV1": {"f:status": {"f:hostIP": {}}}}]},
        "spec": {"nodeName": node, "containers": [{"name": "web", "image": image}]},
        "status": {"hostIP": format!("10.0.0.{}", node.len())}})
}

fn pods(pod: Value, fields: Fields) -> State {
    State::of("demo", vec![("pods".into(), vec![pod])], fields)
}

#[test]
fn only_the_controllers_fields_are_compared_so_another_actors_writes_are_no_difference() {
    let ours = ["kube-controller-manager".to_string()];
    let base = pods(rc_pod("kwok-node-1", "web:1"), Fields::ManagedBy(&ours));
    let elsewhere = pods(rc_pod("kwok-node-22", "web:1"), Fields::ManagedBy(&ours));
    assert_eq!(
        compare(std::slice::from_ref(&base), &elsewhere, &[]),
        Verdict::default(),
        "another node (the scheduler's) and host IP (kwok's)"
    );
    assert_eq!(base.managers, ours);
    let other_image = pods(rc_pod("kwok-node-1", "web:2"), Fields::ManagedBy(&ours));
    assert_eq!(
        compare(std::slice::from_ref(&base), &other_image, &[]).differences,
        [Difference::Content {
            key: "pods web-*".into(),
            fields: vec![(
                ".spec.containers[web].image".into(),
                "\"web:1\"".into(),
                "\"web:2\"".into()
            )]
        }],
        "a field of the controller's, named by the container's name"
    );
    // With every field, the scheduler's choice is a difference.
    let all = |node| pods(rc_pod(node, "web:1"), Fields::All);
    let verdict = compare(&[all("kwok-node-1")], &all("kwok-node-22"), &[]);
    let Difference::Content { fields, .. } = &verdict.differences[0] else {
        panic!("{verdict:?}")
    };
    let paths: Vec<&str> = fields.iter().map(|(p, _, _)| p.as_str()).collect();
    assert_eq!(paths, [".spec.nodeName", ".status.hostIP"]);
}

#[test]
fn an_object_the_controller_owns_no_field_of_is_still_counted() {
    let ours = ["test-operator".to_string()];
    let base = pods(rc_pod("n1", "web:1"), Fields::ManagedBy(&ours));
    assert_eq!(base.objects["pods web-*"], [json!({})]);
    let none = State::of(
        "demo",
        vec![("pods".into(), vec![])],
        Fields::ManagedBy(&ours),
    );
    assert_eq!(
        compare(std::slice::from_ref(&base), &none, &[]).differences,
        [Difference::Missing {
            key: "pods web-*".into(),
            count: 1
        }]
    );
}

#[test]
fn an_ignored_field_and_everything_below_it_are_left_out() {
    let all = |node, image| pods(rc_pod(node, image), Fields::All);
    let base = all("kwok-node-1", "web:1");
    let run = all("kwok-node-22", "web:2");
    let ignored = [".spec.nodeName".to_string(), ".status".to_string()];
    let verdict = compare(std::slice::from_ref(&base), &run, &ignored);
    let Difference::Content { fields, .. } = &verdict.differences[0] else {
        panic!("{verdict:?}")
    };
    assert_eq!(fields.len(), 1, "{fields:?}");
    assert_eq!(fields[0].0, ".spec.containers[web].image");
    let ignored = [".spec".to_string(), ".status".to_string()];
    assert_eq!(compare(&[base], &run, &ignored), Verdict::default());
    assert!(under(".spec.containers[web].image", ".spec.containers"));
    assert!(!under(".spec.containersX", ".spec.containers"));
}

#[test]
fn list_items_are_known_by_their_name_or_type_else_by_their_index() {
    let paths = |v: Value| flat(&v).into_keys().collect::<Vec<_>>();
    assert_eq!(
        paths(json!({"c": [{"name": "b", "x": 1}, {"name": "a", "x": 2}]})),
        [".c[a].name", ".c[a].x", ".c[b].name", ".c[b].x"],
        "in the order of their names, whatever the list's"
    );
    assert_eq!(
        paths(json!({"conditions": [{"type": "Ready", "status": "True"}]})),
        [".conditions[Ready].status", ".conditions[Ready].type"]
    );
    assert_eq!(
        paths(json!({"c": [{"name": "a"}, {"name": "a"}], "args": ["x"]})),
        [".args[0]", ".c[0].name", ".c[1].name"],
        "two items with one name are known by their index"
    );
}

#[test]
fn a_field_the_controller_no_longer_owns_is_named_alone_not_the_whole_object() {
    // A crash lost the controller's resize of a claim: in the run it owns no field of it.
    let owned = json!({"spec": {"resources": {"requests": {"storage": "15Gi"}}}});
    let of = |item: Value| State {
        objects: [("persistentvolumeclaims data-0".to_string(), vec![item])].into(),
        ..State::of("demo", vec![], Fields::All)
    };
    let verdict = compare(&[of(owned)], &of(json!({})), &[]);
    assert_eq!(
        verdict.differences,
        [Difference::Content {
            key: "persistentvolumeclaims data-0".into(),
            fields: vec![(
                ".spec.resources.requests.storage".into(),
                "\"15Gi\"".into(),
                "<none>".into()
            )],
        }]
    );
}
