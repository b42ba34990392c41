"""torch's SIMD kernel levels: detected from the CPU's flags, checked before use, and set per sandbox object."""

import os

import pytest

from harness.core.errors import ConfigError
from harness.isolation import kernels as K
from harness.isolation.sandbox import get_sandbox

AVX2_ONLY = "processor\t: 0\nflags\t\t: fpu sse4_2 fma avx avx2 bmi2\n"
AVX512 = "flags : fpu fma avx avx2 avx512f avx512dq avx512cd avx512bw avx512vl\n"
ARM = "processor : 0\nFeatures : fp asimd evtstrm aes crc32\n"


def test_levels_follow_what_torch_requires_of_the_cpu():
    assert K.supported_levels(K.cpu_flags(AVX2_ONLY), "x86_64") == ["default", "avx2"]
    assert K.supported_levels(K.cpu_flags(AVX512), "x86_64") == ["default", "avx2", "avx512"]
    no_vl = K.cpu_flags(AVX512.replace(" avx512vl", ""))
    assert K.supported_levels(no_vl, "x86_64") == ["default", "avx2"]
    assert K.supported_levels(K.cpu_flags(AVX2_ONLY.replace(" fma", "")), "x86_64") == ["default"]
    assert K.supported_levels(K.cpu_flags(ARM), "aarch64") == ["default"]
    assert K.supported_levels(K.cpu_flags(AVX512), "aarch64") == ["default"]  # flags mean nothing off x86


def test_a_level_the_cpu_lacks_is_refused_with_the_levels_it_has():
    with pytest.raises(ConfigError, match="cannot run torch's 'avx512'.*SIGILL.*default, avx2"):
        K.parse_levels("default,avx512", supported=["default", "avx2"])
    with pytest.raises(ConfigError, match="unknown kernel level 'avx9'"):
        K.parse_levels("avx9", supported=["default"])
    with pytest.raises(ConfigError, match="names no level"):
        K.parse_levels(" , ", supported=["default"])
    assert K.parse_levels("AVX2, default,avx2", supported=["default", "avx2"]) == ["avx2", "default"]


def test_all_means_every_supported_level_up_to_the_native_one():
    assert K.parse_levels("all", supported=["default", "avx2", "avx512"], native="avx2") == ["default", "avx2"]
    assert K.parse_levels("all", supported=["default", "avx2", "avx512"], native="avx512") == ["default", "avx2", "avx512"]
    assert K.parse_levels("all", supported=["default"], native="vsx") == ["default"]  # another platform's name


def test_a_sandbox_copy_runs_under_its_level_without_touching_ours(tmp_path):
    box = get_sandbox("auto")
    lowered = box.with_kernel("default")
    ws = tmp_path / "ws"
    ws.mkdir()
    res = lowered.run('echo "level=${ATEN_CPU_CAPABILITY:-unset}"', ws, 30, 4096)
    assert res.stdout.strip() == "level=default"
    ours = os.environ.get("ATEN_CPU_CAPABILITY", "unset")
    assert box.run('echo "level=${ATEN_CPU_CAPABILITY:-unset}"', ws, 30, 4096).stdout.strip() == f"level={ours}"
    assert box.kernel is None and lowered.describe()["kernel"] == "default"


def test_a_level_set_in_our_environment_reaches_the_commands(tmp_path, monkeypatch):
    """``ATEN_CPU_CAPABILITY=default ml-debug-bench run ...``: the environment allowlist passes the level on."""
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    ws = tmp_path / "ws"
    ws.mkdir()
    res = get_sandbox("auto").run('echo "level=${ATEN_CPU_CAPABILITY:-unset}"', ws, 30, 4096)
    assert res.stdout.strip() == "level=default"


@pytest.mark.slow
def test_torch_in_the_sandbox_uses_the_level_asked_for(tmp_path):
    """Really lower: torch inside reports the forced level (here: default, which every CPU has)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    res = get_sandbox("auto").with_kernel("default").run(
        "python -c 'import torch; print(torch.backends.cpu.get_cpu_capability())'", ws, 120, 4096)
    assert res.stdout.strip().splitlines()[-1] == "DEFAULT", res.stderr[-500:]
    assert K.native_level() in K.LEVELS or K.supported_levels() == ["default"]
    assert K.describe("default").level == "default"


def test_resume_refuses_a_run_whose_kernel_level_changed():
    from harness.models import CpuKernel, RunManifest
    from harness.running.resume import input_changes

    def manifest(level):
        kernel = CpuKernel(level=level, native="avx512", supported=["default", "avx2", "avx512"], flags=["avx2"],
                           machine="x86_64")
        return RunManifest(run_id="r", created_at="t", harness_version="0", agent="a", conditions=["control"],
                           case_ids=["case_01"], epochs=1, case_sha256={}, answer_sha256={},
                           prompt_template_sha256="p", sandbox="none", cpu_kernel=kernel)

    assert input_changes(manifest("avx512"), manifest("avx512")) == []
    changed = input_changes(manifest("avx512"), manifest("default"))
    assert len(changed) == 1 and "kernel level changed (avx512 -> default)" in changed[0]


def test_the_manifest_records_the_kernel_of_the_runs_sandbox():
    from harness.running.runner import kernel_of

    record = kernel_of(get_sandbox("none").with_kernel("default"))
    assert record.level == "default" and record.aten_cpu_capability == "default"
    assert record.native == K.native_level() and set(record.supported) <= set(K.LEVELS)
