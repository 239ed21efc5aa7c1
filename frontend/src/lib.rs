//! Brook kernel language: lexer, lalrpop grammar, type checking and the typed IR
