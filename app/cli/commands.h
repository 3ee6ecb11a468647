#pragma once
// ragscope-cli subcommands. Each takes its own arguments (argv[0] is the subcommand name) and
// returns the process exit code: 0 ok, 1 evaluation problems, 2 usage or input errors.

#include <string>
#include <vector>

namespace ragscope::cli {

using Args = std::vector<std::string>;

int datasetCommand(const Args& args);  // dataset info PATH... [--format F] [--json]
int evalCommand(const Args& args);     // eval [-q] [-c] [-l L] [-M D] [-m M]... QRELS RUN...
// FILE/A/B/X/Y: `trec_eval -q` files, erag/e2e run stores, or TREC runs with --qrels.
int bootstrapCommand(const Args& args);  // bootstrap FILE --measure M [--B N] [--size S] ...
int compareCommand(const Args& args);    // compare A B [C...] --measure M [--permutations N] ...
int correlateCommand(const Args& args);  // correlate X Y --measure M [--measure-y M2] ...
int retrieveCommand(const Args& args);  // retrieve --dataset PATH... --retriever R --out RUN [--k K] ...

int generateCommand(const Args& args);  // generate --dataset PATH [--run RUN --k K] [job options]
int resumeCommand(const Args& args);    // resume RUN.db [--retry-errors] [--api-key-env VAR] ...
int runsCommand(const Args& args);      // runs [DIR] [--json]

int eragCommand(const Args& args);            // erag --dataset PATH (--run R | --retriever bm25) ...
int e2eCommand(const Args& args);             // e2e --dataset PATH (--run R | --retriever bm25) ...
int eragCorrelateCommand(const Args& args);   // erag-correlate --erag RUN.db --e2e RUN.db ...

int ragcheckerCommand(const Args& args);  // ragchecker FILE [--mode ragchecker|ragscope] [--json]
int agreementCommand(const Args& args);   // agreement --human FILE --judge FILE [--name N] [--json]

}  // namespace ragscope::cli
