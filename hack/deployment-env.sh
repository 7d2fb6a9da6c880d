#!/usr/bin/env bash
# Sourced by hack/ scripts: the literal value of an env entry of a Deployment's first container,
# folded YAML (`value: >-` and its indented lines) or a one-line value, on one line.
#   deployment_env manifests/deploy/webhook_deployment.yaml JAVA_TOOL_OPTIONS
deployment_env() {
  awk -v name="$2" '
    $0 ~ "name: " name "$" {f=1; next}
    f && /value: *>-?$/ {v=1; next}
    f && /value:/ {sub(/.*value: *"?/, ""); sub(/"$/, ""); print; exit}
    v && (/^ *- name:/ || /^ *[a-zA-Z]+:/) {exit}
    v {printf "%s ", $0}
  ' "$1" | tr -s ' ' | sed 's/^ //;s/ $//'
}
