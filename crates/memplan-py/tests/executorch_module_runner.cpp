// Runs methods of an ExecuTorch program through the C++ `Module` of the pinned wheel
// (executorch==1.5.1: include/ and lib/libexecutorch.so), for tests/test_executorch_banks.py.
//
//   executorch_module_runner PROGRAM.pte SHARE OUTPUTS < STEPS
//
// SHARE is 1 for `Module(..., share_memory_arenas=true)` (the methods share mem_id 1
// and 2; every arena above 2 is fresh memory per method), 0 for false. Each line of
// STEPS is `METHOD T TOKEN_1 .. TOKEN_T POS_1 .. POS_T`: the method is run on token ids
// (1, T) and positions (T,), both int64, and its first output (float32) is appended to
// OUTPUTS, raw, before the next step runs (an output may live in a shared arena).
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

using executorch::extension::make_tensor_ptr;
using executorch::extension::Module;
using executorch::runtime::etensor::ScalarType;

int main(int argc, char** argv) {
    if (argc != 4 || (std::string(argv[2]) != "0" && std::string(argv[2]) != "1")) {
        std::cerr << "usage: " << argv[0] << " PROGRAM.pte 0|1 OUTPUTS < STEPS\n";
        return 2;
    }
    Module module(argv[1], Module::LoadMode::File, nullptr, nullptr, nullptr,
                  std::string(argv[2]) == "1");
    std::ofstream outputs(argv[3], std::ios::binary);
    std::string method;
    int32_t length = 0;
    while (std::cin >> method >> length) {
        if (length <= 0) {
            std::cerr << "bad length " << length << "\n";
            return 2;
        }
        std::vector<int64_t> tokens(length), positions(length);
        for (auto& token : tokens) std::cin >> token;
        for (auto& position : positions) std::cin >> position;
        if (!std::cin) {
            std::cerr << "truncated step of " << method << "\n";
            return 2;
        }
        auto result = module.execute(
            method, {make_tensor_ptr({1, length}, tokens), make_tensor_ptr({length}, positions)});
        if (!result.ok()) {
            std::cerr << method << " failed: error " << static_cast<int>(result.error()) << "\n";
            return 1;
        }
        const auto& output = (*result)[0].toTensor();
        if (output.scalar_type() != ScalarType::Float) {
            std::cerr << method << ": output is not float32\n";
            return 1;
        }
        outputs.write(static_cast<const char*>(output.const_data_ptr()), output.nbytes());
    }
    return outputs ? 0 : 1;
}
