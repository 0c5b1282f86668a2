package org.rtdroid.codegen;

/** A schema, options file or parameter the generator cannot turn into code; the message names what is wrong. */
final class GeneratorException extends RuntimeException {
    GeneratorException(String message) {
        super(message);
    }
}
