/* field_end.h: closes one instantiation of field.h. */
#undef FIELD
#undef FIELD_LIMBS
#undef FIELD_MODULUS
#undef FIELD_INV
#undef FIELD_ONE
#undef FIELD_MUL
