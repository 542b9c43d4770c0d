//! The dialect, checked against what kubectl 1.37 printed for the same template on the same
//! object (`kubectl create --dry-run=client -o jsonpath=... -f OBJECT`).

use super::*;
use serde_json::json;

fn object() -> Value {
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {
            "name": "web", "namespace": "demo",
            "labels": {"b": "2", "a": "1"},
            "annotations": {"a.b/c": "dotted", "x": "<&>"}
        },
        "spec": {
            "replicas": 3, "ratio": 0.5, "big": 1000000.0, "small": 0.00001, "ok": true,
            "nothing": null, "empty": [],
            "containers": [
                {"name": "app", "image": "nginx",
                 "ports": [{"containerPort": 80}, {"containerPort": 443, "name": "https"}]},
                {"name": "side", "image": "busybox", "ports": []}
            ],
            "list": [0, 1, 2, 3, 4, 5]
        }
    })
}

fn printed(template: &str) -> String {
    let t = Template::parse(template).unwrap_or_else(|e| panic!("{e}"));
    t.print(&object(), true, false)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn failed(template: &str, allow_missing: bool) -> String {
    let t = Template::parse(template).unwrap_or_else(|e| panic!("{e}"));
    t.print(&object(), allow_missing, false)
        .unwrap_err()
        .to_string()
}

fn refused(template: &str) -> String {
    Template::parse(template).unwrap_err().to_string()
}

#[test]
fn text_outside_braces_and_quoted_strings_print_as_they_are() {
    assert_eq!(
        printed(r#"{.metadata.name}{"\t"}{.spec.replicas}{"\n"}"#),
        "web\t3\n"
    );
    assert_eq!(printed("x{@.kind}y"), "xConfigMapy");
    assert_eq!(printed(r#"{'a\'b'}{"\x41\u00e9\101"}"#), "a'bAéA");
}

#[test]
fn maps_and_arrays_print_as_go_json_and_several_values_are_joined_by_a_space() {
    assert_eq!(printed("{.metadata.labels}"), r#"{"a":"1","b":"2"}"#);
    assert_eq!(
        printed("{.metadata.annotations}"),
        r#"{"a.b/c":"dotted","x":"\u003c\u0026\u003e"}"#
    );
    assert_eq!(printed("{.spec.containers[*].name}"), "app side");
    assert_eq!(printed("{.spec.empty}{.spec.nothing}"), "[]null");
    assert_eq!(
        printed("{.spec.ratio} {.spec.big} {.spec.small} {.spec.ok} {.spec.nothing}"),
        "0.5 1e+06 1e-05 true null"
    );
    assert_eq!(printed("{.metadata.annotations['x']}"), "<&>");
}

#[test]
fn indexes_slices_and_unions_select_as_kubectl_does() {
    assert_eq!(printed("{.spec.list[1:3]}"), "1 2");
    assert_eq!(printed("{.spec.list[-1]}"), "5");
    assert_eq!(printed("{.spec.list[::2]}"), "0 2 4");
    assert_eq!(printed("{.spec.list[0,2]}"), "0 2");
    assert_eq!(printed("{.spec.list[1:1]}"), "");
    assert_eq!(printed("{.spec.list[]}"), "0");
    assert_eq!(printed("{.spec.containers[0,1].name}"), "app side");
}

#[test]
fn escaped_dots_name_one_key() {
    assert_eq!(printed(r"{.metadata.annotations.a\.b/c}"), "dotted");
}

#[test]
fn filters_compare_each_element_and_test_existence() {
    assert_eq!(
        printed(r#"{.spec.containers[?(@.name=="side")].image}"#),
        "busybox"
    );
    assert_eq!(
        printed("{.spec.containers[*].ports[?(@.containerPort>100)].name}"),
        "https"
    );
    assert_eq!(
        printed("{.spec.containers[*].ports[?(@.name)].containerPort}"),
        "443"
    );
    assert_eq!(printed(r#"{.spec.containers[?(@.name>"b")].name}"#), "side");
    assert_eq!(
        printed(r#"{.spec.containers[?(@.name!="app")].name}"#),
        "side"
    );
    assert_eq!(printed("{.spec.list[?(@<=1)]}"), "0 1");
    assert_eq!(printed("{.spec.list[?(@>=4)]}"), "4 5");
}

#[test]
fn recursive_descent_finds_every_key_below() {
    assert_eq!(printed("{..image}"), "nginx busybox");
    assert_eq!(printed("{..containerPort}"), "80 443");
}

#[test]
fn range_prints_its_body_once_per_value() {
    assert_eq!(
        printed("{range .spec.containers[*]}{.name}={.image};{end}"),
        "app=nginx;side=busybox;"
    );
    assert_eq!(
        printed(
            r#"{range .spec.containers[*]}{.name}:{range .ports[*]}{.containerPort},{end}{"\n"}{end}"#
        ),
        "app:80,443,\nside:\n"
    );
    assert_eq!(printed("{range .spec.empty[*]}x{end}done"), "done");
}

#[test]
fn a_missing_key_prints_nothing_unless_missing_keys_are_refused() {
    assert_eq!(printed("{.nope}"), "");
    assert_eq!(printed("a{.nope.deeper}b"), "ab");
    assert_eq!(
        failed("{.x}", false),
        r#"error executing jsonpath "{.x}": Error executing template: x is not found"#
    );
}

#[test]
fn errors_on_an_object_are_kubectls_whatever_missing_keys_may_do() {
    for (template, reason) in [
        (
            "{.spec.list[9]}",
            "array index out of bounds: index 9, length 6",
        ),
        (
            "{.spec.list[2:1]}",
            "starting index 2 is greater than ending index 1",
        ),
        (
            "{.spec.containers[?(@.name==1)]}",
            "incompatible types for comparison",
        ),
        (
            "{.spec.containers[0].ports[?(@.containerPort==80.0)]}",
            "incompatible types for comparison",
        ),
        ("{.spec.replicas[0]}", "int64 is not array or slice"),
        (
            "{.metadata.name[?(@)]}",
            "web is not array or slice and cannot be filtered",
        ),
        ("{.spec.list[::0]}", "step must be > 0"),
    ] {
        let said = failed(template, true);
        assert!(
            said.ends_with(&format!(": Error executing template: {reason}")),
            "{said}"
        );
    }
}

#[test]
fn a_strings_wildcard_is_its_bytes_as_go_reflects_them() {
    assert_eq!(printed("{.metadata.name.*}"), "119 101 98");
}

#[test]
fn bad_templates_are_refused_in_kubectls_words() {
    for (template, reason) in [
        ("{.a", "unclosed action"),
        ("{.a[0}", "unterminated array"),
        ("{.a[x]}", "invalid array index x"),
        ("{.a[?(@.b==1}", "unterminated filter"),
        (r#"{"abc}"#, "unterminated quoted string"),
        ("{!}", "unrecognized character in action: U+0021 '!'"),
        ("{....a}", "invalid multiple recursive descent"),
        ("{+}", "cannot parse number +"),
        (r#"{"\q"}"#, r#"unquote string "\q" error invalid syntax"#),
        ("{.a[?(@.b)x]}", "unclosed array expect ]"),
        (
            "{.a[?(@.b=~1)]}",
            "unrecognized character in action: U+007E '~'",
        ),
        // kubectl finds these only on an object; tail before it watches.
        ("{end}", "not in range, nothing to end"),
        ("{nope}", "unrecognized identifier nope"),
        ("{.a[?(@.b=1)]}", "unrecognized filter operator ="),
    ] {
        assert_eq!(
            refused(template),
            format!("error parsing jsonpath {template}, {reason}")
        );
    }
}

#[test]
fn as_json_prints_each_actions_values_as_an_indented_array() {
    let t = Template::parse("{.spec.containers[*].name}{.metadata.labels}").unwrap();
    assert_eq!(
        t.print(&object(), true, true).unwrap(),
        "[\n    \"app\",\n    \"side\"\n]\n[\n    {\n        \"a\": \"1\",\n        \"b\": \"2\"\n    }\n]\n"
    );
}

#[test]
fn go_sprint_prints_maps_sorted_and_null_as_nil() {
    let v = json!({"b": [1, "x", null], "a": {"c": 1.5}});
    assert_eq!(sprint(&v), "map[a:map[c:1.5] b:[1 x <nil>]]");
}
