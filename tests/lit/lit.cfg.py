# lit configuration for the hce-translate tests.
import os

import lit.formats

config.name = "hce-translate"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = getattr(config, "hce_lit_binary_dir",
                                config.test_source_root)

tools = config.llvm_tools_dir
# FileCheck, not, count come from LLVM 19's tools directory.
config.environment["PATH"] = os.pathsep.join(
    [tools, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["HOME", "TMPDIR", "LD_LIBRARY_PATH"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%hce-translate", config.hce_translate))
config.substitutions.append(("%hce-include", config.hce_include))
config.substitutions.append(("%clangxx", os.path.join(tools, "clang++")))
config.substitutions.append(("%clang", os.path.join(tools, "clang")))
config.substitutions.append(
    ("%mockrt", os.path.join(config.test_source_root, "Inputs",
                             "mock_runtime.c")))
